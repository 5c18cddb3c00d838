// Names for the generated shapes (schema.ts, from the served OpenAPI): every request and answer type of the SDK is
// read from there, so a change of the API changes the SDK's types on the next `npm run generate:sdk`.
import type { components, paths } from './schema.js'

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
/** A path of the API that has an operation for the method. */
export type PathWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined | never ? never : P }[keyof paths]
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>

type JsonContent<R> = R extends { content: { 'application/json': infer J } } ? J : undefined
type SuccessStatus = 200 | 201 | 202 | 204
type Responses<P extends keyof paths, M extends Method> = Operation<P, M> extends { responses: infer R } ? R : never

/** The JSON answered on success (any 2xx the document lists). */
export type Answer<P extends keyof paths, M extends Method> =
  JsonContent<Responses<P, M>[Extract<keyof Responses<P, M>, SuccessStatus>]>
/** The JSON body the operation takes. */
export type Body<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
/** The query parameters the operation takes. */
export type Query<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never

export type Job = components['schemas']['Job']
export type JobRequest = components['schemas']['JobRequest']
export type Monitor = components['schemas']['Monitor']
export type MonitorRequest = components['schemas']['MonitorRequest']
export type MonitorUpdate = components['schemas']['MonitorUpdate']
export type MonitorRun = components['schemas']['MonitorRun']
export type ErrorBody = components['schemas']['ErrorBody']
/** One failing field of a 400/422 (`error.details`). */
export type FieldError = NonNullable<ErrorBody['error']['details']>[number]
export type Format = NonNullable<JobRequest['formats']>[number]
export type Tier = JobRequest['job_type']
