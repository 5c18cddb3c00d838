/**
 * The `xpath` package with speed fixes for large HTML pages (results are unchanged):
 *
 * 1. Rewriting `//x[p]` (descendant-or-self::node()/child::x[p]) to `descendant::x[p]` when the
 *    predicates cannot depend on position. xpath evaluates the child step once per node of the
 *    page otherwise, each time with fresh context objects.
 * 2. Node sets deduplicate with a Set and sort by our view's document-order index: the
 *    package does a linear scan per added node and an AVL sort per node set, which turns a
 *    20 000-node result quadratic.
 * 3. A `descendant::name` step tests the elements of that name only (the view lists them).
 * 4. Contexts are copied without building resolvers first: the package's `extend` and every path
 *    expression's evaluation make (and drop) a function resolver holding every standard function, for
 *    every node a predicate is tried on.
 * 5. The string-value of an element is read from cheerio's tree, without wrapping every node under it.
 * 6. Location steps without a node set per context node, and number-literal predicates picked by position.
 * 7. An `@name` step makes only the attribute nodes that may have that name.
 * And one guard: evaluation runs on the fetcher's thread and cannot be interrupted, so steps and
 * string values check a deadline (`//*[. = //*]` is quadratic on a large page).
 */
import xpathLib from 'xpath'
import { descendantsNamed, stringValue, XDocument, XElement, type XAttr, type XNode } from './xpath-dom.js'

export interface XValue {
  stringValue(): string
  numberValue(): number
  booleanValue(): boolean
}
export interface XNodeSetValue extends XValue {
  toArray(): XNode[]
}
export interface ParsedXPath {
  evaluate(options: Record<string, unknown>): XValue
}
type AnyClass = abstract new (...args: never[]) => object

// The parser, AST and value classes exist at run time but are missing from xpath's typings.
interface XPathInternals {
  parse(expression: string): ParsedXPath & { expression: unknown }
  XNodeSet: (abstract new (...args: never[]) => XNodeSetValue) & { prototype: NodeSetInternals }
  XNumber: abstract new (...args: never[]) => { numberValue(): number; readonly kind?: 'number' }
  XBoolean: abstract new (...args: never[]) => { booleanValue(): boolean; readonly kind?: 'boolean' }
  Step: (new (axis: number, nodeTest: unknown, predicates: unknown[]) => StepNode) & Record<
    'ATTRIBUTE' | 'CHILD' | 'DESCENDANT' | 'DESCENDANTORSELF' | 'ANCESTOR' | 'ANCESTORORSELF' | 'PARENT' | 'PRECEDING' | 'PRECEDINGSIBLING', number>
  NodeTest: { NameTestQName: abstract new (...args: never[]) => NameTest }
  XPathContext: { prototype: { extend(this: object, props: object): object } }
  LocationPath: AnyClass
  PathExpr: AnyClass & {
    applyStep: (...args: unknown[]) => unknown
    applySteps: (steps: StepNode[], xpc: XPathContextInternals, nodes: unknown[]) => unknown[]
    predicateMatches: (predicate: unknown, context: XPathContextInternals) => boolean
    applyLocationPath: (locationPath: unknown, xpc: object, nodes: unknown[]) => unknown[]
    prototype: PathExprInternals
  }
  FunctionCall: AnyClass
  OrOperation: AnyClass
  AndOperation: AnyClass
  EqualsOperation: AnyClass
  NotEqualOperation: AnyClass
  LessThanOperation: AnyClass
  GreaterThanOperation: AnyClass
  LessThanOrEqualOperation: AnyClass
  GreaterThanOrEqualOperation: AnyClass
}
interface StepNode {
  axis: number
  nodeTest: unknown
  predicates: unknown[]
}
interface NameTest {
  readonly localName: string
  readonly prefix: string | null
  matches(node: unknown, context: unknown): boolean
}
interface XPathContextInternals {
  extend(props: object): XPathContextInternals
  contextNode: unknown
  contextSize: number
  contextPosition: number
}
interface PathExprInternals {
  locationPath: unknown
  evaluate(this: PathExprInternals, c: object): unknown
  applyFilter(c: object, xpc: object): { nodes: unknown[] } | { nonNodes: unknown }
}
interface NodeSetInternals {
  addArray(nodes: unknown[]): void
  nodes: unknown[]
  size: number
  tree: unknown
  seen?: Set<unknown>
  init(): void
  add(node: unknown): void
  stringForNode(node: unknown): string
  toArray(): unknown[]
  first(): unknown
}

export const xpath = xpathLib as unknown as XPathInternals

const BOOLEAN_OPERATIONS: AnyClass[] = [
  xpath.OrOperation, xpath.AndOperation, xpath.EqualsOperation, xpath.NotEqualOperation, xpath.LessThanOperation,
  xpath.GreaterThanOperation, xpath.LessThanOrEqualOperation, xpath.GreaterThanOrEqualOperation,
]
const BOOLEAN_FUNCTIONS = new Set(['contains', 'starts-with', 'not', 'boolean', 'true', 'false', 'lang'])

/** Every object of an AST (it has no cycles, but guard anyway). */
function* walk(root: unknown): Generator<Record<string, unknown>> {
  const stack = [root]
  const seen = new Set<unknown>()
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null || seen.has(node)) continue
    seen.add(node)
    yield node as Record<string, unknown>
    stack.push(...Object.values(node))
  }
}

/** A predicate is positional when it may be a number or mentions position()/last(); only then does the rewrite change results. */
function positional(predicate: unknown): boolean {
  for (const n of walk(predicate)) {
    if (n instanceof xpath.FunctionCall && (n.functionName === 'position' || n.functionName === 'last')) return true
  }
  if (BOOLEAN_OPERATIONS.some((c) => predicate instanceof c)) return false
  if (!(predicate instanceof xpath.PathExpr)) return true
  const p = predicate as { filter?: unknown; filterPredicates?: unknown[]; locationPath?: unknown }
  if (!p.filter) return false // a location path: a node set, true when non-empty
  const booleanCall = p.filter instanceof xpath.FunctionCall && BOOLEAN_FUNCTIONS.has((p.filter as { functionName: string }).functionName)
  return !(booleanCall && !p.locationPath && (p.filterPredicates?.length ?? 0) === 0)
}

function optimize(expression: unknown) {
  for (const n of [...walk(expression)]) {
    if (!(n instanceof xpath.LocationPath)) continue
    const steps = (n as unknown as { steps: StepNode[] }).steps
    for (let i = 0; i < steps.length - 1; i++) {
      const [a, b] = [steps[i], steps[i + 1]]
      const anyNode = a.axis === xpath.Step.DESCENDANTORSELF && String(a.nodeTest) === 'node()' && a.predicates.length === 0
      if (anyNode && b.axis === xpath.Step.CHILD && !b.predicates.some(positional)) {
        steps.splice(i, 2, new xpath.Step(xpath.Step.DESCENDANT, b.nodeTest, b.predicates))
      }
    }
  }
}

const compiled = new Map<string, ParsedXPath>()
/** Parse (and optimize) an expression; monitors re-run the same hooks, so keep a bounded cache. */
export function parseXPath(path: string): ParsedXPath {
  let parsed = compiled.get(path)
  if (!parsed) {
    const fresh = xpath.parse(path)
    optimize(fresh.expression)
    parsed = fresh
    if (compiled.size >= 500) compiled.delete(compiled.keys().next().value!)
    compiled.set(path, parsed)
  }
  return parsed
}

const ordered = (nodes: unknown[]): nodes is XNode[] => nodes.every((n) => typeof (n as XNode).order === 'number')

const SMALL_NODE_SET = 12

function patchNodeSets() {
  const proto = xpath.XNodeSet.prototype
  const { init, toArray, first } = proto
  proto.init = function () {
    init.call(this)
    this.seen = undefined
  }
  proto.add = function (node) {
    // Most node sets (a predicate's `@class`, one context node) hold a node or two: a Set only pays from a dozen on.
    if (this.seen) {
      if (this.seen.has(node)) return
      this.seen.add(node)
    } else if (this.nodes.length < SMALL_NODE_SET) {
      if (this.nodes.includes(node)) return
    } else {
      this.seen = new Set(this.nodes)
      if (this.seen.has(node)) return
      this.seen.add(node)
    }
    this.tree = null
    this.nodes.push(node)
    this.size += 1
  }
  // Nodes of other DOMs (and XPath namespace nodes) have no order index: keep the package's sort.
  proto.toArray = function () {
    return ordered(this.nodes) ? [...this.nodes].sort((a, b) => a.order - b.order) : toArray.call(this)
  }
  proto.first = function () {
    if (!ordered(this.nodes)) return first.call(this)
    let min: XNode | null = null
    for (const n of this.nodes) if (!min || n.order < min.order) min = n
    return min
  }
}
patchNodeSets()

function patchContextCopies() {
  const proto = xpath.XPathContext.prototype
  proto.extend = function (props) {
    return Object.assign(Object.create(proto) as object, this, props)
  }
  // The package's own body, with `assign(new XPathContext(), c)` (a resolver built, then overwritten) as a plain copy.
  xpath.PathExpr.prototype.evaluate = function (c) {
    const xpc = Object.assign(Object.create(proto) as object, c)
    const filterResult = this.applyFilter(c, xpc)
    if ('nonNodes' in filterResult) return filterResult.nonNodes
    const ns = new (xpath.XNodeSet as unknown as new () => NodeSetInternals)()
    ns.addArray(xpath.PathExpr.applyLocationPath(this.locationPath, xpc, filterResult.nodes))
    return ns
  }
}
patchContextCopies()

/**
 * 6. Location steps: the package's own loop (each context node's step, its predicates, results concatenated), with
 * two shortcuts. A step's nodes are put in document order before its predicates without a node set per context
 * node when they already are (they are on our view: checked in one pass). And a number literal as predicate
 * (`td[1]`) keeps the node at that position without evaluating anything per node.
 */
function patchLocationSteps() {
  const { PathExpr, Step } = xpath
  const reverseAxes = new Set([Step.ANCESTOR, Step.ANCESTORORSELF, Step.PARENT, Step.PRECEDING, Step.PRECEDINGSIBLING])
  const nodeSet = xpath.XNodeSet as unknown as new () => NodeSetInternals

  /** The package's `sortNodes`: document order, deduplicated, reversed for reverse axes. */
  const sortNodes = (nodes: unknown[], reverse: boolean): unknown[] => {
    let sorted: unknown[]
    if (inOrder(nodes)) sorted = nodes.slice()
    else {
      const set = new nodeSet()
      set.addArray(nodes)
      sorted = set.toArray()
    }
    return reverse ? sorted.reverse() : sorted
  }

  const applyPredicates = (predicates: unknown[], c: XPathContextInternals, nodes: unknown[], reverse: boolean): unknown[] => {
    if (predicates.length === 0) return nodes
    let ctx: XPathContextInternals | undefined
    let inNodes = sortNodes(nodes, reverse)
    for (const predicate of predicates) {
      const position = numberLiteral(predicate)
      if (position !== undefined) {
        // What `predicateMatches` does with a number: keep the node whose position equals it.
        inNodes = Number.isInteger(position) && position >= 1 && position <= inNodes.length ? [inNodes[position - 1]] : []
        continue
      }
      ctx ??= c.extend({})
      const context = ctx
      context.contextSize = inNodes.length
      inNodes = inNodes.filter((node, i) => {
        context.contextNode = node
        context.contextPosition = i + 1
        return PathExpr.predicateMatches(predicate, context)
      })
    }
    return inNodes
  }

  PathExpr.applySteps = function (steps, xpc, nodes) {
    let current = nodes
    for (const step of steps) {
      const reverse = reverseAxes.has(step.axis)
      const next: unknown[] = []
      for (const node of current) {
        const found = applyPredicates(step.predicates, xpc, PathExpr.applyStep(step, xpc, node) as unknown[], reverse)
        for (const n of found) next.push(n)
      }
      current = next
    }
    return current
  }
}
patchLocationSteps()

/** The value of a predicate that is a number literal (parsed as a path expression with just that filter). */
function numberLiteral(predicate: unknown): number | undefined {
  if (predicate instanceof xpath.XNumber) return predicate.numberValue()
  if (!(predicate instanceof xpath.PathExpr)) return undefined
  const p = predicate as { filter?: unknown; filterPredicates?: unknown[]; locationPath?: unknown }
  if (!(p.filter instanceof xpath.XNumber) || p.locationPath || (p.filterPredicates?.length ?? 0) > 0) return undefined
  return p.filter.numberValue()
}

/** Nodes of our view, strictly in document order (so also without duplicates). */
function inOrder(nodes: unknown[]): boolean {
  let previous = -1
  for (const n of nodes) {
    const order = (n as Partial<XNode>).order
    if (typeof order !== 'number' || order <= previous) return false
    previous = order
  }
  return true
}

export const XPATH_TIME_BUDGET_MS = 2000
export class XPathTimeout extends Error {}
let deadline = Number.POSITIVE_INFINITY
let ticks = 0
/** Cheap enough for hot paths: the clock is read once every 256 calls. */
function tick() {
  if ((++ticks & 255) === 0 && performance.now() > deadline) throw new XPathTimeout('XPath exceeded its time budget')
}

function patchDeadlineChecks() {
  const { applyStep } = xpath.PathExpr
  xpath.PathExpr.applyStep = function (...args: unknown[]) {
    tick()
    const [step, context, node] = args as [StepNode, { contextNode: unknown; caseInsensitive?: boolean }, XNode]
    // 3. `descendant::name` (what `//name` becomes) tests only the elements of that name under the node, from the
    // view's index, instead of every node under it. Unprefixed names only: a prefix that does not resolve must still
    // fail the evaluation when nothing has the name.
    if (step.axis === xpath.Step.DESCENDANT && step.nodeTest instanceof xpath.NodeTest.NameTestQName && !step.nodeTest.prefix) {
      const test = step.nodeTest
      const named = descendantsNamed(node, test.localName)
      if (named) {
        context.contextNode = node
        return named.filter((m) => test.matches(m, context))
      }
    }
    // 7. `@name` on an element of our view makes (and tests) only the attribute nodes that may have that name.
    if (step.axis === xpath.Step.ATTRIBUTE && node instanceof XElement && step.nodeTest instanceof xpath.NodeTest.NameTestQName) {
      const test = step.nodeTest
      context.contextNode = node
      const list = node.attributes
      const out: XAttr[] = []
      for (let i = 0; i < list.length; i++) {
        if (!list.mayMatch(i, test.localName, context.caseInsensitive === true)) continue
        const attr = list.item(i)!
        if (test.matches(attr, context)) out.push(attr)
      }
      return out
    }
    return applyStep.apply(this, args)
  }
  const proto = xpath.XNodeSet.prototype
  const { stringForNode } = proto
  proto.stringForNode = function (node) {
    tick()
    return node instanceof XElement || node instanceof XDocument ? stringValue(node) : stringForNode.call(this, node)
  }
}
patchDeadlineChecks()

/** Run an evaluation that throws XPathTimeout once `budgetMs` have passed. */
export function withinBudget<T>(budgetMs: number, evaluate: () => T): T {
  deadline = performance.now() + budgetMs
  try {
    return evaluate()
  } finally {
    deadline = Number.POSITIVE_INFINITY
  }
}
