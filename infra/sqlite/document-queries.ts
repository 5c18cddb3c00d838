import type { Filter, FindOptions } from '../../ports/document-store.js'

const SAFE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

const jsonPath = (field: string): string => {
  if (!SAFE_PATH.test(field)) throw new Error(`unsafe field path: ${field}`)
  return field === '_id' ? 'id' : `json_extract(body, '$.${field}')`
}

const sqlValue = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)

/** Translates a Filter into SQL; equality on an array field matches any element (as in MongoDB). */
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
    } else if ('$contains' in value) {
      parts.push(`instr(unicode_lower(${expr}), unicode_lower(?)) > 0`)
      params.push(value.$contains)
    } else {
      for (const [op, sqlOp] of [['$gt', '>'], ['$gte', '>='], ['$lt', '<'], ['$lte', '<=']] as const) {
        if (value[op] !== undefined) { parts.push(`${expr} ${sqlOp} ?`); params.push(value[op]) }
      }
    }
  }
  return { sql: parts.length > 0 ? `where collection = ? and ${parts.join(' and ')}` : 'where collection = ?', params }
}

/** The SQL of DocumentStoreService.find on the docs table (its values are parameters), answering `body` per row. */
export const findQuery = (collection: string, filter: Filter, options: FindOptions = {}): { sql: string; params: unknown[] } => {
  const where = whereClause(filter)
  const order = options.sort && options.sort.length > 0
    ? `order by ${options.sort.map(([f, dir]) => `${jsonPath(f)} ${dir === 'desc' ? 'desc' : 'asc'}`).join(', ')}`
    : 'order by id'
  const limit = options.limit === undefined ? -1 : Math.max(0, Math.floor(options.limit))
  const skip = Math.max(0, Math.floor(options.skip ?? 0))
  return { sql: `select body from docs ${where.sql} ${order} limit ? offset ?`, params: [collection, ...where.params, limit, skip] }
}

/** The SQL of DocumentStoreService.count on the docs table, answering `n`. */
export const countQuery = (collection: string, filter: Filter): { sql: string; params: unknown[] } => {
  const where = whereClause(filter)
  return { sql: `select count(*) as n from docs ${where.sql}`, params: [collection, ...where.params] }
}

