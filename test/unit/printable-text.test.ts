import t from 'tap'
import { printableText } from '../../domain/printable-text.js'

t.test('printableText shows control characters as control pictures and keeps everything else', async (t) => {
  t.equal(printableText('a\u001b[2Jb'), 'a␛[2Jb')
  t.equal(printableText('\u0000\u0001\u001f\u007f\u0080\u009f'), '␀␁␟␡\uFFFD\uFFFD')
  t.equal(printableText('tab\tand\nline, é 🙂 \u00a0'), 'tab\tand\nline, é 🙂 \u00a0', 'tab, line feed and printable text stay')
})
