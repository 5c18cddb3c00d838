/** What a client sends first on an HTTP/2 connection, read from the decrypted bytes (RFC 9113 frames). */
export interface Http2Preface {
  /** SETTINGS parameters of the client's first SETTINGS frame, in sent order. */
  readonly settings: ReadonlyArray<readonly [id: number, value: number]>
  /** Increment of the first connection-level WINDOW_UPDATE, null when none came before the first HEADERS. */
  readonly windowUpdate: number | null
  /** PRIORITY frames before the first HEADERS. */
  readonly priorities: ReadonlyArray<{ readonly stream: number; readonly exclusive: boolean; readonly dependsOn: number; readonly weight: number }>
  /** The priority block of the first HEADERS frame, null when its PRIORITY flag was not set. */
  readonly headersPriority: { readonly exclusive: boolean; readonly dependsOn: number; readonly weight: number } | null
  /** Frame types in sent order up to the first HEADERS (names as in RFC 9113). */
  readonly frameOrder: readonly string[]
}

const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1')
const FRAME_NAMES: Record<number, string> = { 0: 'DATA', 1: 'HEADERS', 2: 'PRIORITY', 3: 'RST_STREAM', 4: 'SETTINGS', 6: 'PING', 7: 'GOAWAY', 8: 'WINDOW_UPDATE', 9: 'CONTINUATION' }
const FLAG_ACK = 0x1
const FLAG_PADDED = 0x8
const FLAG_PRIORITY = 0x20

const readDependency = (data: Buffer, offset: number) => {
  const word = data.readUInt32BE(offset)
  return { exclusive: (word & 0x8000_0000) !== 0, dependsOn: word & 0x7fff_ffff, weight: data[offset + 4]! + 1 }
}

/** Parses the client's preface and frames up to its first HEADERS; null while those bytes are incomplete. */
export const parseHttp2Preface = (bytes: Buffer): Http2Preface | null => {
  if (bytes.length < CLIENT_PREFACE.length) return null
  if (!bytes.subarray(0, CLIENT_PREFACE.length).equals(CLIENT_PREFACE)) throw new Error('not an HTTP/2 client connection preface')
  const settings: Array<[number, number]> = []
  const priorities: Array<Http2Preface['priorities'][number]> = []
  const frameOrder: string[] = []
  let windowUpdate: number | null = null
  let settingsSeen = false
  let p = CLIENT_PREFACE.length
  while (p + 9 <= bytes.length) {
    const length = bytes.readUIntBE(p, 3)
    const type = bytes[p + 3]!
    const flags = bytes[p + 4]!
    const stream = bytes.readUInt32BE(p + 5) & 0x7fff_ffff
    if (p + 9 + length > bytes.length) return null
    const payload = bytes.subarray(p + 9, p + 9 + length)
    p += 9 + length
    frameOrder.push(FRAME_NAMES[type] ?? `type-${type}`)
    if (type === 4 && (flags & FLAG_ACK) === 0 && !settingsSeen) {
      settingsSeen = true
      for (let i = 0; i + 6 <= payload.length; i += 6) settings.push([payload.readUInt16BE(i), payload.readUInt32BE(i + 2)])
    } else if (type === 8 && stream === 0 && windowUpdate === null) {
      windowUpdate = payload.readUInt32BE(0) & 0x7fff_ffff
    } else if (type === 2) {
      priorities.push({ stream, ...readDependency(payload, 0) })
    } else if (type === 1) {
      const padding = (flags & FLAG_PADDED) !== 0 ? 1 : 0
      const headersPriority = (flags & FLAG_PRIORITY) !== 0 ? readDependency(payload, padding) : null
      return { settings, windowUpdate, priorities, headersPriority, frameOrder }
    }
  }
  return null
}

const PSEUDO_CODES: Record<string, string> = { ':method': 'm', ':authority': 'a', ':scheme': 's', ':path': 'p', ':protocol': 'r' }

/**
 * Akamai's HTTP/2 fingerprint (Shuster and Peled, Black Hat EU 2017):
 * SETTINGS id:value;… | WINDOW_UPDATE increment (00 if none) | PRIORITY frames stream:exclusive:parent:weight,… (0 if none) | pseudo-header order.
 */
export const akamaiFingerprint = (preface: Http2Preface, headerNames: readonly string[]): string => [
  preface.settings.map(([id, value]) => `${id}:${value}`).join(';'),
  preface.windowUpdate === null ? '00' : String(preface.windowUpdate),
  preface.priorities.length === 0 ? '0' : preface.priorities.map((f) => `${f.stream}:${f.exclusive ? 1 : 0}:${f.dependsOn}:${f.weight}`).join(','),
  headerNames.filter((name) => name.startsWith(':')).map((name) => PSEUDO_CODES[name] ?? name).join(','),
].join('|')
