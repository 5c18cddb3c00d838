import { createHash } from 'node:crypto'

/** One extension of a ClientHello, in the order the client sent it. */
export interface HelloExtension { readonly type: number; readonly data: Buffer }

export interface ClientHello {
  readonly legacyVersion: number
  readonly ciphers: readonly number[]
  readonly extensions: readonly HelloExtension[]
  readonly serverName: string | null
  readonly alpn: readonly string[]
  readonly supportedVersions: readonly number[]
  readonly signatureAlgorithms: readonly number[]
  readonly groups: readonly number[]
  readonly keyShareGroups: readonly number[]
}

export const EXT = {
  serverName: 0x0000, supportedGroups: 0x000a, signatureAlgorithms: 0x000d, alpn: 0x0010, supportedVersions: 0x002b,
  keyShare: 0x0033, echOuter: 0xfe0d, alpsOld: 0x4469, alpsNew: 0x44cd, trustAnchors: 0xca34,
} as const

/** RFC 8701 GREASE code points: 0x0a0a, 0x1a1a … 0xfafa. */
export const isGrease = (value: number): boolean => (value & 0x0f0f) === 0x0a0a && (value >> 8) === (value & 0xff)

const u16List = (data: Buffer, offset: number, byteLength: number): number[] => {
  const out: number[] = []
  for (let i = offset; i + 1 < offset + byteLength; i += 2) out.push(data.readUInt16BE(i))
  return out
}

/**
 * The handshake message of a ClientHello from the bytes a client sent first (one or more TLS records).
 * Returns null while the message is still incomplete.
 */
export const clientHelloMessage = (bytes: Buffer): Buffer | null => {
  const fragments: Buffer[] = []
  let offset = 0
  while (offset + 5 <= bytes.length) {
    if (bytes[offset] !== 0x16) throw new Error(`not a TLS handshake record (content type ${bytes[offset]})`)
    const length = bytes.readUInt16BE(offset + 3)
    if (offset + 5 + length > bytes.length) return null
    fragments.push(bytes.subarray(offset + 5, offset + 5 + length))
    offset += 5 + length
    const message = Buffer.concat(fragments)
    if (message.length >= 4) {
      if (message[0] !== 0x01) throw new Error(`first handshake message is not a ClientHello (type ${message[0]})`)
      const total = 4 + message.readUIntBE(1, 3)
      if (message.length >= total) return message.subarray(0, total)
    }
  }
  return null
}

export const parseClientHello = (message: Buffer): ClientHello => {
  let p = 4
  const legacyVersion = message.readUInt16BE(p); p += 2 + 32
  p += 1 + message[p]!
  const cipherBytes = message.readUInt16BE(p)
  const ciphers = u16List(message, p + 2, cipherBytes); p += 2 + cipherBytes
  p += 1 + message[p]!
  const extensionsEnd = p + 2 + message.readUInt16BE(p); p += 2
  const extensions: HelloExtension[] = []
  while (p + 4 <= extensionsEnd) {
    const type = message.readUInt16BE(p)
    const length = message.readUInt16BE(p + 2)
    extensions.push({ type, data: message.subarray(p + 4, p + 4 + length) })
    p += 4 + length
  }
  const find = (type: number) => extensions.find((e) => e.type === type)?.data
  const sni = find(EXT.serverName)
  const alpnData = find(EXT.alpn)
  const alpn: string[] = []
  if (alpnData) for (let i = 2; i < alpnData.length; i += 1 + alpnData[i]!) alpn.push(alpnData.subarray(i + 1, i + 1 + alpnData[i]!).toString('latin1'))
  const versions = find(EXT.supportedVersions)
  const sigalgs = find(EXT.signatureAlgorithms)
  const groups = find(EXT.supportedGroups)
  const keyShare = find(EXT.keyShare)
  const keyShareGroups: number[] = []
  if (keyShare) for (let i = 2; i + 4 <= keyShare.length; i += 4 + keyShare.readUInt16BE(i + 2)) keyShareGroups.push(keyShare.readUInt16BE(i))
  return {
    legacyVersion,
    ciphers,
    extensions,
    // server_name_list: list length (2), name type (1), name length (2), name.
    serverName: sni && sni.length > 5 ? sni.subarray(5, 5 + sni.readUInt16BE(3)).toString('latin1') : null,
    alpn,
    supportedVersions: versions ? u16List(versions, 1, versions[0]!) : [],
    signatureAlgorithms: sigalgs ? u16List(sigalgs, 2, sigalgs.readUInt16BE(0)) : [],
    groups: groups ? u16List(groups, 2, groups.readUInt16BE(0)) : [],
    keyShareGroups,
  }
}

const hex4 = (value: number) => value.toString(16).padStart(4, '0')
const sha12 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12)
const two = (count: number) => String(Math.min(count, 99)).padStart(2, '0')
const VERSION_CODES: Record<number, string> = { 0x0304: '13', 0x0303: '12', 0x0302: '11', 0x0301: '10', 0x0300: 's3', 0x0002: 's2', 0xfeff: 'd1', 0xfefd: 'd2', 0xfefc: 'd3' }
const isAlphanumeric = (byte: number) => (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)

const alpnCode = (first: string | undefined): string => {
  if (!first) return '00'
  const bytes = Buffer.from(first, 'latin1')
  const a = bytes[0]!
  const z = bytes[bytes.length - 1]!
  if (isAlphanumeric(a) && isAlphanumeric(z)) return String.fromCharCode(a) + String.fromCharCode(z)
  const hex = bytes.toString('hex')
  return hex[0]! + hex[hex.length - 1]!
}

/** JA4 (FoxIO, TLS over TCP): GREASE ignored everywhere; ciphers and extensions sorted; signature algorithms in sent order. */
export const ja4 = (hello: ClientHello): string => {
  const ciphers = hello.ciphers.filter((c) => !isGrease(c))
  const extensions = hello.extensions.map((e) => e.type).filter((t) => !isGrease(t))
  const versions = hello.supportedVersions.filter((v) => !isGrease(v))
  const version = versions.length > 0 ? Math.max(...versions) : hello.legacyVersion
  const a = `t${VERSION_CODES[version] ?? '00'}${hello.serverName !== null ? 'd' : 'i'}${two(ciphers.length)}${two(extensions.length)}${alpnCode(hello.alpn[0])}`
  const b = ciphers.length === 0 ? '000000000000' : sha12([...ciphers].sort((x, y) => x - y).map(hex4).join(','))
  const hashed = extensions.filter((t) => t !== EXT.serverName && t !== EXT.alpn).sort((x, y) => x - y).map(hex4).join(',')
  const sigalgs = hello.signatureAlgorithms.filter((s) => !isGrease(s)).map(hex4).join(',')
  const c = extensions.length === 0 ? '000000000000' : sha12(sigalgs ? `${hashed}_${sigalgs}` : hashed)
  return `${a}_${b}_${c}`
}

/** Where a ClientHello carries GREASE (RFC 8701), as Chromium's does in each of these lists. */
export const greasePlaces = (hello: ClientHello) => ({
  ciphers: hello.ciphers.some(isGrease),
  extensions: hello.extensions.some((e) => isGrease(e.type)),
  groups: hello.groups.some(isGrease),
  versions: hello.supportedVersions.some(isGrease),
})

/** The extension types in sent order, GREASE written as "grease" (its value is random per connection). */
export const extensionOrder = (hello: ClientHello): string =>
  hello.extensions.map((e) => (isGrease(e.type) ? 'grease' : hex4(e.type))).join(',')

export const extensionLength = (hello: ClientHello, type: number): number | null =>
  hello.extensions.find((e) => e.type === type)?.data.length ?? null

/** Names of HTTP client libraries that must never appear inside an extension of an impersonated ClientHello. */
export const LIBRARY_NAMES = /impit|wreq|reqwest|hyper|rustls|boring|curl|okhttp|golang|utls|node|openssl/i

export const libraryNamesInExtensions = (hello: ClientHello): string[] =>
  hello.extensions.flatMap((e) => {
    const match = e.data.toString('latin1').match(LIBRARY_NAMES)
    return match ? [`${hex4(e.type)}: ${match[0]}`] : []
  })

export const hex = hex4
