import t from 'tap'
import { load } from 'cheerio'
import { elementText, visibleText } from '../../domain/visible-text.js'

/** [markup, the page's visible text (regex hooks), the body's one-line text (css/xpath/records values)] */
const CASES: Array<[string, string, string]> = [
  ['<p>a</p><p>b</p>', 'a\nb', 'a b'],
  ['<div> one  <b>two</b>three \n\n <i> four</i></div>', 'one twothree\nfour', 'one twothree four'],
  ['<table><tr><td>a</td><td> b </td></tr><tr><th>c</th></tr></table>', 'a b\nc', 'a b c'],
  ['<p>no\u00a0break\u2028sep\u3000wide \r\n crlf</p>', 'no break sep wide\ncrlf', 'no break sep wide crlf'],
  ['<p>x<script>var hidden = 1</script><style>.y{}</style>y<template><p>t</p></template></p>', 'xy', 'xy'],
  ['<ul><li> first </li><li>\n</li><li>second<br>line</li></ul>', 'first\nsecond\nline', 'first second line'],
  ['<span>  </span><span>a</span> <span> </span> <em>b</em>', 'a b', 'a b'],
]

t.test('visible text collapses whitespace runs across nodes: a line break per block, a space otherwise, none at the ends', async (t) => {
  CASES.forEach(([html, visible, line], i) => {
    const $ = load(html)
    t.equal(visibleText($.root()[0]), visible, `visible text of case ${i}`)
    t.equal(elementText($('body')[0]), line, `element text of case ${i}`)
  })
})

t.test('a hidden kind of element still has text when asked for directly', async (t) => {
  const $ = load('<div><script>var a = 1;\n  go()</script></div>')
  t.equal(elementText($('script')[0]), 'var a = 1; go()')
  t.equal(elementText($('div')[0]), '')
})
