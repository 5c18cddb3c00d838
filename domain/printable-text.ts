/** C0 control characters but tab and line feed, DEL, and the C1 controls (U+0080-U+009F). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/**
 * Page text made safe to show: a binary or hostile page carries ESC sequences and other control bytes that a terminal,
 * a mail client or a log viewer would act on. Each becomes its visible Unicode "control picture" (ESC reads `␛`,
 * NUL `␀`, DEL `␡`; a C1 control reads `�`), so the text still shows that something was there, and nothing acts on it.
 */
export const printableText = (text: string): string =>
  text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0)
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\uFFFD'
  })
