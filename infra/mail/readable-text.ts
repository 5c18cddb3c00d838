/** RFC 5322's longest line; a longer one must stay quoted-printable. */
const MAX_LINE_BYTES = 998

/**
 * A single-part text message whose body goes out as written (7bit, or 8bit with non-ASCII text) instead of
 * quoted-printable: a saved `.eml` then shows every link exactly as it works, without `=3D` or soft line breaks.
 * nodemailer picks quoted-printable for any line over 76 characters (every verification link), and its `textEncoding`
 * option chooses only between quoted-printable and base64 (unreadable in a file), so the built message's body is
 * replaced by its text. Anything else is answered unchanged.
 */
export const withReadableText = (raw: Buffer, text: string): Buffer => {
  const message = raw.toString('utf8')
  const headerEnd = message.indexOf('\n\n')
  if (headerEnd < 0) return raw
  const head = message.slice(0, headerEnd)
  const encoding = /^Content-Transfer-Encoding: quoted-printable$/im
  if (!/^Content-Type: text\/plain/im.test(head) || !encoding.test(head)) return raw
  const body = text.replace(/\r\n?/g, '\n')
  if (body.split('\n').some((line) => Buffer.byteLength(line) > MAX_LINE_BYTES)) return raw
  const label = /^[\x00-\x7f]*$/.test(body) ? '7bit' : '8bit'
  return Buffer.from(`${head.replace(encoding, `Content-Transfer-Encoding: ${label}`)}\n\n${body}`)
}
