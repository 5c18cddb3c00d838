import type { Filter, FindOptions, IndexDeclaration } from '../../ports/document-store.js'

const SAFE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

const jsonPath = (field: string): string => {
  if (!SAFE_PATH.test(field)) throw new Error(`unsafe field path: ${field}`)
  return field === '_id' ? 'id' : `json_extract(body, '$.${field}')`
}

const sqlValue = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)

const SAFE_COLLECTION = /^[A-Za-z0-9_]+$/

/**
 * `collection = '<name>'` written as a literal, not a parameter: only then may SQLite use a partial index of the
 * collection (collection names are the service's own, never a client's).
 */
export const inCollection = (collection: string) => {
  if (!SAFE_COLLECTION.test(collection)) throw new Error(`unsafe collection name: ${collection}`)
  return `collection = '${collection}'`
}

/** The embedded store's partial index for a declared one: its fields' values in the collection's documents. */
export const indexStatement = (index: IndexDeclaration) => {
  const name = `docs_${index.collection}__${index.fields.map(([field, direction]) => `${field.replaceAll('.', '_')}_${direction === 1 ? 'asc' : 'desc'}`).join('__')}`
  const columns = index.fields.map(([field, direction]) => `${jsonPath(field)}${direction === -1 ? ' desc' : ''}`).join(', ')
  // Led by the collection, so the planner prefers it to the primary key for its queries even without statistics.
  return `create index if not exists "${name}" on docs (collection, ${columns}) where ${inCollection(index.collection)}`
}

/** Translates a Filter into SQL conditions after the collection's; equality on an array field matches any element (as in MongoDB). */
const whereClause = (filter: Filter): { sql: string; params: unknown[] } => {
  const parts: string[] = []
  const params: unknown[] = []
  for (const [field, value] of Object.entries(filter)) {
    const expr = jsonPath(field)
    // As in MongoDB: the value itself matches, or, when the field is an array, any of its elements.
    const matches = (op: string, values: unknown[]) => {
      if (field === '_id') { parts.push(`id ${op}`); params.push(...values); return }
      parts.push(`(${expr} ${op} or (json_type(body, '$.${field}') = 'array' and exists (select 1 from json_each(body, '$.${field}') where json_each.value ${op})))`)
      params.push(...values, ...values)
    }
    if (value === null) parts.push(`${expr} is null`)
    else if (typeof value !== 'object') matches('= ?', [sqlValue(value)])
    else if ('$in' in value) {
      if (value.$in.length === 0) { parts.push('0'); continue }
      matches(`in (${value.$in.map(() => '?').join(', ')})`, value.$in.map(sqlValue))
    } else if ('$nin' in value) {
      if (value.$nin.length === 0) continue
      const list = `in (${value.$nin.map(() => '?').join(', ')})`
      const values = value.$nin.map(sqlValue)
      if (field === '_id') { parts.push(`id not ${list}`); params.push(...values); continue }
      // A missing field (NULL) matches, as in MongoDB.
      parts.push(`not coalesce(${expr} ${list} or (json_type(body, '$.${field}') = 'array' and exists (select 1 from json_each(body, '$.${field}') where json_each.value ${list})), 0)`)
      params.push(...values, ...values)
    } else if ('$contains' in value) {
      parts.push(`instr(unicode_lower(${expr}), unicode_lower(?)) > 0`)
      params.push(value.$contains)
    } else {
      for (const [op, sqlOp] of [['$gt', '>'], ['$gte', '>='], ['$lt', '<'], ['$lte', '<=']] as const) {
        if (value[op] !== undefined) { parts.push(`${expr} ${sqlOp} ?`); params.push(value[op]) }
      }
    }
  }
  return { sql: parts.length > 0 ? ` and ${parts.join(' and ')}` : '', params }
}

/** The SQL of DocumentStoreService.find on the docs table (its values are parameters), answering `body` per row. */
export const findQuery = (collection: string, filter: Filter, options: FindOptions = {}): { sql: string; params: unknown[] } => {
  const where = whereClause(filter)
  const order = options.sort && options.sort.length > 0
    ? `order by ${options.sort.map(([f, dir]) => `${jsonPath(f)} ${dir === 'desc' ? 'desc' : 'asc'}`).join(', ')}`
    : 'order by id'
  const limit = options.limit === undefined ? -1 : Math.max(0, Math.floor(options.limit))
  const skip = Math.max(0, Math.floor(options.skip ?? 0))
  return { sql: `select body from docs where ${inCollection(collection)}${where.sql} ${order} limit ? offset ?`, params: [...where.params, limit, skip] }
}

/** The SQL of DocumentStoreService.count on the docs table, answering `n`. */
export const countQuery = (collection: string, filter: Filter): { sql: string; params: unknown[] } => {
  const where = whereClause(filter)
  return { sql: `select count(*) as n from docs where ${inCollection(collection)}${where.sql}`, params: where.params }
}

