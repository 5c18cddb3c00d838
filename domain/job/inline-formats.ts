import { FORMAT_DEFINITIONS, type Format } from './formats.js'

/**
 * The most bytes of one format's artifact the result carries inline. The result is one JSON answer: a 25 MB page asked
 * for as html, rawHtml and text would otherwise make it 75 MB. Past the cap text is cut (at a character boundary) and
 * a JSON value left out; `formats_truncated` names the artifact that holds all of it.
 */
export const INLINE_FORMAT_MAX_BYTES = 1024 * 1024

/** What the result says of a format whose inline content is cut or left out. */
export interface TruncatedFormat { readonly artifact_id: string; readonly size: number }

/** A format's artifact as the result route reads it: its record, and its bytes up to the cap (read only when needed). */
export interface FormatArtifact {
  readonly artifact_id: string
  readonly size: number
  readonly content_type: string
}

/** Whether the result needs the artifact's bytes for this format (a link needs none, an oversized JSON value neither). */
export const needsBytes = (format: Format, artifact: FormatArtifact): boolean => {
  const inline = FORMAT_DEFINITIONS[format].inline
  return inline === 'text' || (inline === 'json' && artifact.size <= INLINE_FORMAT_MAX_BYTES)
}

/** The end of the longest prefix of at most `max` bytes that does not split a UTF-8 character. */
const characterBoundary = (bytes: Uint8Array, max: number): number => {
  if (bytes.byteLength <= max) return bytes.byteLength
  let end = max
  // Continuation bytes are 10xxxxxx: back off to the first byte of the character the cut would split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1
  return end
}

const decoder = new TextDecoder()

/**
 * The inline value of a text or JSON format from its artifact's bytes. `json` of a body that is not JSON is null (the
 * target answered something else); so is any JSON value over the cap, which is then reported truncated.
 */
export const inlineValue = (format: Format, artifact: FormatArtifact, bytes: Uint8Array): { readonly value: unknown; readonly truncated: boolean } => {
  if (FORMAT_DEFINITIONS[format].inline === 'text') {
    const end = characterBoundary(bytes, INLINE_FORMAT_MAX_BYTES)
    return { value: decoder.decode(bytes.subarray(0, end)), truncated: end < bytes.byteLength }
  }
  if (artifact.size > INLINE_FORMAT_MAX_BYTES) return { value: null, truncated: true }
  try {
    return { value: JSON.parse(decoder.decode(bytes)), truncated: false }
  } catch {
    return { value: null, truncated: false }
  }
}
