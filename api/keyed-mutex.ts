/** Serializes async sections per key within this process (admission of one organization's jobs). */
export const makeKeyedMutex = () => {
  const tails = new Map<string, Promise<void>>()
  return async <A>(key: string, section: () => Promise<A>): Promise<A> => {
    const previous = tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const current = new Promise<void>((resolve) => { release = resolve })
    const tail = previous.then(() => current)
    tails.set(key, tail)
    await previous
    try {
      return await section()
    } finally {
      release()
      if (tails.get(key) === tail) tails.delete(key)
    }
  }
}
