import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

/**
 * The folder table of ARCHITECTURE.md ("Folders": what each folder may import), enforced on every import of every
 * .ts file: static, re-exports, dynamic `import()` and `import('x').T` types. A folder may always import itself.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[] | 'everything'>> = {
  domain: [],
  ports: ['domain'],
  commands: ['domain', 'ports'],
  projections: ['domain', 'ports'],
  processors: ['domain', 'commands', 'fetchers', 'ports'],
  fetchers: ['domain'],
  api: ['commands', 'projections', 'domain'],
  infra: 'everything',
  // The dashboard (bundled for the browser): it reaches the service only through the public API.
  web: ['domain'],
  // The `scrapeworks` user command: an HTTP client of the public API, which may name the domain's shapes as types only.
  client: [],
  // The SDKs: packages of their own, installed by users apart from the service; their types are generated from the
  // served OpenAPI document, not imported.
  sdks: [],
  test: 'everything',
  // Not in the table: tooling run beside the service (benchmarks, the test runner, service checks), never by it.
  bench: 'everything',
  scripts: 'everything',
}

/**
 * The api names the services its runtime must provide (the `R` of the effects a route runs) as types: a type-only
 * import of a port's Tag brings no adapter and no behaviour into the api, so it is allowed; a value import is not.
 * The client may name the domain's shapes (a job spec's fields) the same way, and runs none of its code.
 */
const TYPE_ONLY_ALLOWED: Readonly<Record<string, readonly string[]>> = { api: ['ports'], client: ['domain'] }

/** Node built-ins domain may use: pure computation (hashing, text, URLs), no I/O. */
const PURE_BUILTINS = new Set(['crypto', 'util', 'url', 'buffer', 'assert', 'string_decoder', 'querystring', 'punycode'])
/** Packages that open files, sockets, processes or browsers, or serve HTTP: none of them in domain. */
const IO_PACKAGES = [
  'better-sqlite3', 'mongodb', 'kafkajs', '@eventstore/db-client', '@azure/storage-blob', 'undici', 'impit', 'nodemailer',
  'playwright-core', 'puppeteer-real-browser', 'rebrowser-puppeteer-core', 'proxy-chain', 'fastify', '@fastify/', 'azurite', 'tsx',
]

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

interface Import {
  readonly specifier: string
  readonly typeOnly: boolean
  readonly line: number
}

/** Every module a file refers to, with whether the reference can only ever be a type. */
export const importsOf = (fileName: string, text: string): Import[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const found: Import[] = []
  const add = (literal: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(literal)) return
    found.push({ specifier: literal.text, typeOnly, line: source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1 })
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      // `import type {..}`, or `import { type A, type B }` (which, with verbatimModuleSyntax off, TypeScript elides).
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings)
        && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)))
      add(node.moduleSpecifier, typeOnly)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      add(node.arguments[0], false)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const tsFiles = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
  const path = join(dir, entry.name)
  if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : tsFiles(path)
  return entry.name.endsWith('.ts') || entry.name.endsWith('.tsx') ? [path] : []
})

const topFolder = (path: string) => path.split(sep)[0]!

/** What is wrong with one import of a file in `folder`, or null when the table allows it. */
export const violation = (folder: string, file: string, imported: Import): string | null => {
  const rule = MAY_IMPORT[folder]
  const where = `${file}:${imported.line} imports '${imported.specifier}'`
  if (rule === undefined) return `${file}: the folder '${folder}' is not in the folder table (add it, with what it may import)`
  const { specifier } = imported
  if (specifier.startsWith('.')) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier))
    if (target.startsWith('..')) return `${where}, outside the repository`
    const targetFolder = topFolder(target)
    if (rule === 'everything' || targetFolder === folder || rule.includes(targetFolder)) return null
    if (imported.typeOnly && TYPE_ONLY_ALLOWED[folder]?.includes(targetFolder)) return null
    const allowed = rule.length > 0 ? rule.join(', ') : `nothing outside ${folder}`
    return `${where} (${targetFolder}/): ${folder}/ may import ${allowed}`
  }
  if (folder !== 'domain' || imported.typeOnly) return null
  const bare = specifier.replace(/^node:/, '')
  const builtin = specifier.startsWith('node:') || builtinModules.includes(bare.split('/')[0]!)
  if (builtin && !PURE_BUILTINS.has(bare)) return `${where}: domain/ does no I/O (Node built-in '${bare}')`
  if (IO_PACKAGES.some((p) => (p.endsWith('/') ? specifier.startsWith(p) : specifier === p || specifier.startsWith(`${p}/`)))) {
    return `${where}: domain/ does no I/O (package '${specifier}')`
  }
  return null
}

const files = Object.keys(MAY_IMPORT).flatMap((folder) => {
  try { return tsFiles(folder) } catch { return [] }
})

t.test('every top-level folder with TypeScript is in the folder table', async (t) => {
  const folders = readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' && tsFiles(e.name).length > 0)
    .map((e) => e.name)
  t.same(folders.filter((f) => MAY_IMPORT[f] === undefined), [], 'folders missing from MAY_IMPORT')
})

t.test('imports follow the folder table of ARCHITECTURE.md', async (t) => {
  t.ok(files.length > 100, `${files.length} files checked`)
  const problems = files.flatMap((file) =>
    importsOf(file, readFileSync(join(ROOT, file), 'utf8')).flatMap((imported) => violation(topFolder(file), file, imported) ?? []))
  if (problems.length === 0) t.pass('no forbidden import')
  for (const problem of problems) t.fail(`forbidden import: ${problem}`)
})

t.test('the parser sees every kind of import, and the rules catch what they must', async (t) => {
  const sample = [
    "import { a } from '../infra/a.js'",
    "import type { B } from '../ports/b.js'",
    "import { type C } from '../ports/c.js'",
    "export { d } from './d.js'",
    "const e = await import('../infra/e.js')",
    "type F = import('../ports/f.js').F",
    "import 'node:fs'",
  ].join('\n')
  t.same(importsOf('api/x.ts', sample).map((i) => [i.specifier, i.typeOnly]), [
    ['../infra/a.js', false], ['../ports/b.js', true], ['../ports/c.js', true], ['./d.js', false],
    ['../infra/e.js', false], ['../ports/f.js', true], ['node:fs', false],
  ])
  const check = (file: string, specifier: string, typeOnly = false) => violation(topFolder(file), file, { specifier, typeOnly, line: 1 })
  t.match(check('domain/x.ts', '../ports/event-store.js'), /domain\/x\.ts:1 imports '\.\.\/ports\/event-store\.js' \(ports\/\): domain\/ may import nothing outside domain/)
  t.match(check('domain/x.ts', 'node:fs'), /domain\/ does no I\/O/)
  t.match(check('domain/x.ts', 'better-sqlite3'), /domain\/ does no I\/O/)
  t.equal(check('domain/x.ts', 'node:crypto'), null)
  t.match(check('api/v1/x.ts', '../../infra/blob/local-folder.js'), /api\/ may import commands, projections, domain/)
  t.match(check('api/v1/x.ts', '../../ports/mail.js'), /\(ports\/\)/, 'a value import of a port from api')
  t.equal(check('api/v1/x.ts', '../../ports/mail.js', true), null, 'a type-only import of a port from api')
  t.match(check('projections/x.ts', '../commands/jobs.js'), /projections\/ may import domain, ports/)
  t.match(check('fetchers/light/x.ts', '../../processors/runner.js'), /fetchers\/ may import domain/)
  t.equal(check('fetchers/light/x.ts', '../engine.js'), null, 'within its own folder')
  t.equal(check('infra/x.ts', '../api/server.js'), null)
})
