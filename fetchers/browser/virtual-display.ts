import { spawn, type ChildProcess } from 'node:child_process'

/**
 * An X display for headed browsers (`headless: false`, and the stealth engine's default way of looking like a desktop).
 * When DISPLAY is set it is used as is; otherwise one Xvfb server is started on first use, shared by every headed
 * browser of the process, and stopped when the last one lets go of it.
 */
export interface DisplayLease {
  /** Value for the browser's DISPLAY variable, e.g. `:99`. */
  readonly display: string
  release(): void
}

const XVFB_START_TIMEOUT_MS = 10_000

let server: { child: ChildProcess; display: string; users: number } | undefined
let starting: Promise<{ child: ChildProcess; display: string; users: number }> | undefined

const startXvfb = (binary: string) => new Promise<{ child: ChildProcess; display: string; users: number }>((resolve, reject) => {
  // -displayfd: Xvfb picks a free display number itself and writes it to fd 3 once it accepts connections,
  // which avoids both guessing a number and racing its readiness.
  const child = spawn(binary, ['-displayfd', '3', '-screen', '0', '1920x1080x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] })
  let stderr = ''
  let out = ''
  const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('Xvfb did not report a display in time')) }, XVFB_START_TIMEOUT_MS)
  child.stderr?.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-2000) })
  ;(child.stdio[3] as NodeJS.ReadableStream).on('data', (c: Buffer) => {
    out += c.toString()
    const match = /^(\d+)\n/.exec(out)
    if (match) { clearTimeout(timer); resolve({ child, display: `:${match[1]}`, users: 0 }) }
  })
  child.on('error', (error) => { clearTimeout(timer); reject(new Error(`Xvfb could not be started (${binary}): ${error.message}`)) })
  child.on('exit', (code) => {
    clearTimeout(timer)
    if (server?.child === child) server = undefined
    reject(new Error(`Xvfb exited with ${code}: ${stderr.trim().slice(-300)}`))
  })
})

// A display left behind would outlive the service; Xvfb holds no state worth a graceful stop.
process.once('exit', () => { server?.child.kill('SIGKILL') })

export const acquireDisplay = async (xvfbBinary = 'Xvfb'): Promise<DisplayLease> => {
  const existing = process.env.DISPLAY
  if (existing) return { display: existing, release: () => {} }
  if (!server) {
    starting ??= startXvfb(xvfbBinary).finally(() => { starting = undefined })
    server = await starting
  }
  const current = server
  current.users += 1
  let released = false
  return {
    display: current.display,
    release: () => {
      if (released) return
      released = true
      current.users -= 1
      if (current.users === 0 && server === current) {
        server = undefined
        current.child.kill('SIGTERM')
      }
    },
  }
}
