/**
 * Clients that resolve writer schemas by id, cached across invocations (module scope lives as long
 * as the Lambda container), one request per id however many records ask at once.
 */
import { BoundedCache } from './cache.ts';
import { requestCause, SchemaNotFoundError, SchemaRegistryRequestError } from './errors.ts';

/**
 * A writer schema as the registry holds it.
 *
 * @example
 * ```ts
 * const schema: RegisteredSchema = { id: '17', type: 'AVRO', definition: '{"type":"string"}' };
 * ```
 */
export interface RegisteredSchema {
  /** Confluent: the decimal id; Glue: the schema version UUID. */
  readonly id: string;
  readonly type: 'AVRO' | 'PROTOBUF' | 'JSON';
  /** The schema text (Avro JSON, .proto source, JSON Schema). */
  readonly definition: string;
  /**
   * The schemas this one references (Confluent's schema references), in dependency order: each comes
   * after the ones it references itself, so compiling them in this order and the schema last meets
   * no unknown name. `name` is what the schema calls it: an Avro full type name, a JSON Schema
   * `$ref`, a .proto import path. Absent or empty when it references none (Glue's schemas never do).
   */
  readonly references?: readonly {
    readonly name: string;
    readonly type: 'AVRO' | 'PROTOBUF' | 'JSON';
    readonly definition: string;
  }[];
}

/**
 * Counts of a client since it was created: `requests` made to the registry, `cacheHits` answered from
 * the cache. After warm-up `requests` stops growing.
 *
 * @example
 * ```ts
 * console.log(registry.stats.requests, registry.stats.cacheHits);
 * ```
 */
export interface SchemaRegistryStats {
  requests: number;
  cacheHits: number;
}

/**
 * Resolves writer schemas by id. Made by {@link confluentSchemaRegistry} or `glueSchemaRegistry`
 * (`kafka-lambda/schema-registry/glue`); create it once, at module scope, so its cache outlives the
 * invocation.
 *
 * @example
 * ```ts
 * const schema = await registry.getSchema('17', signal);
 * ```
 */
export interface SchemaRegistryClient {
  /** Which registry's ids it understands. */
  readonly registry: 'confluent' | 'glue';
  readonly stats: SchemaRegistryStats;
  /**
   * The schema with this id. Rejects with `SchemaNotFoundError` when the registry has none (Confluent:
   * a 404 with error code 40403), with `SchemaRegistryRequestError` when it cannot be asked (timeout,
   * network, 5xx, 401/403, any other 404: a URL that is not the registry's API) or when `signal`
   * aborts.
   */
  getSchema(id: string, signal?: AbortSignal): Promise<RegisteredSchema>;
}

/**
 * Options common to both registry clients.
 *
 * @example
 * ```ts
 * const options: SchemaRegistryCacheOptions = { cacheSize: 100, timeoutMs: 2000 };
 * ```
 */
export interface SchemaRegistryCacheOptions {
  /** Schemas kept; the least recently used goes when full. Default 1000. */
  cacheSize?: number | undefined;
  /**
   * Longest wait for one request, in ms; the decoder's signal (the invocation's deadline) also ends
   * it. Default 5000.
   */
  timeoutMs?: number | undefined;
}

/** Caching, request sharing and timeouts; subclasses only fetch. */
export abstract class CachingSchemaRegistry implements SchemaRegistryClient {
  abstract readonly registry: 'confluent' | 'glue';
  readonly stats: SchemaRegistryStats = { requests: 0, cacheHits: 0 };
  readonly #cache: BoundedCache<string, Promise<RegisteredSchema>>;
  readonly #timeoutMs: number;

  constructor(options: SchemaRegistryCacheOptions = {}) {
    this.#cache = new BoundedCache(options.cacheSize ?? 1000);
    const timeoutMs = options.timeoutMs ?? 5000;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs))
      throw new RangeError(`timeoutMs must be a positive number, not ${timeoutMs}`);
    this.#timeoutMs = timeoutMs;
  }

  getSchema(id: string, signal?: AbortSignal): Promise<RegisteredSchema> {
    return this.shared(this.#cache, id, () => this.fetchSchema(id, this.deadline(signal), signal));
  }

  /**
   * The cached answer for `key`, or a new request made by `request` and cached while it lasts: one
   * request per key however many records ask at once. Counted in {@link stats}.
   */
  protected shared<V>(
    cache: BoundedCache<string, Promise<V>>,
    key: string,
    request: () => Promise<V>,
  ): Promise<V> {
    const cached = cache.get(key);
    if (cached !== undefined) {
      this.stats.cacheHits++;
      return cached;
    }
    this.stats.requests++;
    const pending = request();
    cache.set(key, pending);
    // A failed request is not cached: the next record asks again (a 404 too: the schema may be
    // registered meanwhile, and the record is isolated either way).
    pending.catch(() => {
      if (cache.get(key) === pending) cache.delete(key);
    });
    return pending;
  }

  /** What one request may take: `signal` (the invocation's deadline), ended sooner by `timeoutMs`. */
  protected deadline(signal: AbortSignal | undefined): AbortSignal {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }

  /**
   * One request to the registry; rejects with the errors {@link SchemaRegistryClient.getSchema}
   * names. `deadline` ends it; `signal` is the caller's own, for the further requests a schema's
   * references need (each gets its own {@link deadline}).
   */
  protected abstract fetchSchema(
    id: string,
    deadline: AbortSignal,
    signal: AbortSignal | undefined,
  ): Promise<RegisteredSchema>;
}

/**
 * How to authenticate to a Confluent-compatible registry: basic auth (Confluent Cloud's API key and
 * secret) or a bearer token (a string, or a function called per request for tokens that expire). A
 * token with a space, a control character or a non-ASCII character inside fails the request with a
 * `SchemaRegistryRequestError` naming `auth.bearerToken`, before anything is sent.
 *
 * @example
 * ```ts
 * const auth: ConfluentRegistryAuth = { username: process.env.SR_KEY!, password: process.env.SR_SECRET! };
 * ```
 */
export type ConfluentRegistryAuth =
  | { readonly username: string; readonly password: string }
  | { readonly bearerToken: string | (() => string | Promise<string>) };

/**
 * Options of {@link confluentSchemaRegistry}.
 *
 * @example
 * ```ts
 * const options: ConfluentSchemaRegistryOptions = { url: 'https://psrc-123.eu-west-1.aws.confluent.cloud' };
 * ```
 */
export interface ConfluentSchemaRegistryOptions extends SchemaRegistryCacheOptions {
  /** Base URL of the registry's REST API (Confluent, or a compatible one such as Apicurio's `/apis/ccompat/v7`). */
  url: string;
  auth?: ConfluentRegistryAuth | undefined;
}

/**
 * A client of a Confluent-compatible schema registry (Confluent Platform, Confluent Cloud, Apicurio's
 * compatible API): `GET /schemas/ids/{id}`, cached.
 *
 * @example
 * ```ts
 * const registry = confluentSchemaRegistry({ url: process.env.SCHEMA_REGISTRY_URL! });
 * export const handler = middy().use(kafkaBatch({ value: avroDecoder({ registry }), onRecord }));
 * ```
 */
export function confluentSchemaRegistry(options: ConfluentSchemaRegistryOptions): SchemaRegistryClient {
  return new ConfluentSchemaRegistry(options);
}

class ConfluentSchemaRegistry extends CachingSchemaRegistry {
  readonly registry = 'confluent';
  readonly #base: string;
  readonly #auth: ConfluentRegistryAuth | undefined;
  /** Referenced schemas by subject and version: shared by the schemas that reference them. */
  readonly #versions: BoundedCache<string, Promise<SchemaAnswer>>;

  constructor(options: ConfluentSchemaRegistryOptions) {
    super(options);
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new TypeError('The schema registry url is not a URL');
    }
    if (url.username || url.password)
      throw new TypeError('Give the schema registry credentials as auth, not in the url');
    this.#base = url.href.replace(/\/+$/, '');
    this.#auth = options.auth;
    this.#versions = new BoundedCache(options.cacheSize ?? 1000);
  }

  protected async fetchSchema(
    id: string,
    deadline: AbortSignal,
    signal: AbortSignal | undefined,
  ): Promise<RegisteredSchema> {
    if (!/^\d{1,10}$/.test(id)) throw new SchemaNotFoundError(id);
    const what = `schema ${id}`;
    const { status, body } = await this.#get(`/schemas/ids/${id}`, what, deadline);
    if (status === 404) {
      if (confluentErrorCode(body) === SCHEMA_NOT_FOUND) throw new SchemaNotFoundError(id);
      throw notTheApi(what);
    }
    const answer = readAnswer(body, what, status);
    if (answer.references.length === 0) return { id, type: answer.type, definition: answer.definition };
    const references = await this.#resolve(answer.references, id, signal);
    return { id, type: answer.type, definition: answer.definition, references };
  }

  /**
   * The referenced schemas, each after the ones it references itself (depth first, each name once),
   * each version asked for once (`GET /subjects/{subject}/versions/{version}`, Confluent's REST API
   * reference: https://docs.confluent.io/platform/current/schema-registry/develop/api.html; "Schema
   * references": https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html).
   * A reference the registry cannot give is the registry's problem, not the record's: a request error.
   */
  async #resolve(
    references: readonly RawReference[],
    id: string,
    signal: AbortSignal | undefined,
  ): Promise<NonNullable<RegisteredSchema['references']>> {
    const resolved: { name: string; type: RegisteredSchema['type']; definition: string }[] = [];
    const named = new Set<string>();
    const visit = async (level: readonly RawReference[], path: readonly string[]): Promise<void> => {
      // A registry only takes references to versions that exist already, so a cycle or a deep chain
      // is a registry answering wrong: bounded, so that it ends in an error, not a hang.
      if (path.length >= MAX_REFERENCE_DEPTH)
        throw new SchemaRegistryRequestError(
          `Schema ${id}'s references are nested deeper than ${MAX_REFERENCE_DEPTH} levels`,
        );
      // Siblings are asked for at once; each reference's own come first in the result.
      const answers = await Promise.all(level.map((reference) => this.#version(reference, id, signal)));
      for (const [index, reference] of level.entries()) {
        if (named.has(reference.name)) continue;
        const key = versionKey(reference);
        if (path.includes(key))
          throw new SchemaRegistryRequestError(
            `Schema ${id}'s references form a cycle at subject ${reference.subject} version ${reference.version}`,
          );
        const answer = answers[index]!;
        await visit(answer.references, [...path, key]);
        if (named.has(reference.name)) continue;
        if (resolved.length >= MAX_REFERENCES)
          throw new SchemaRegistryRequestError(`Schema ${id} has more than ${MAX_REFERENCES} references`);
        named.add(reference.name);
        resolved.push({ name: reference.name, type: answer.type, definition: answer.definition });
      }
    };
    await visit(references, []);
    return resolved;
  }

  /** One referenced version, cached, with its own deadline. */
  #version(reference: RawReference, id: string, signal: AbortSignal | undefined): Promise<SchemaAnswer> {
    return this.shared(this.#versions, versionKey(reference), async () => {
      const what = `subject ${reference.subject} version ${reference.version} (referenced by schema ${id})`;
      const path = `/subjects/${encodeURIComponent(reference.subject)}/versions/${reference.version}`;
      const { status, body } = await this.#get(path, what, this.deadline(signal));
      if (status === 404) {
        const code = confluentErrorCode(body);
        if (code === SUBJECT_NOT_FOUND || code === VERSION_NOT_FOUND)
          throw new SchemaRegistryRequestError(`Schema registry has no ${what}`, 404);
        throw notTheApi(what);
      }
      return readAnswer(body, what, status);
    });
  }

  /**
   * A GET of the registry's API: its status and JSON body (`undefined` when not JSON) when it
   * answered 2xx or 404; a request error for anything else, naming `what` was asked for.
   */
  async #get(path: string, what: string, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {
      accept: 'application/vnd.schemaregistry.v1+json, application/json',
    };
    const auth = this.#auth;
    if (auth !== undefined) {
      // Base64 carries any character of a user-id and password, so fetch refuses none of them; a
      // bearer token goes in as it is, and is checked first.
      headers.authorization =
        'bearerToken' in auth
          ? `Bearer ${await bearerToken(auth.bearerToken)}`
          : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    }
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, { headers, signal });
    } catch (error) {
      const reason = signal.aborted ? 'timed out or was aborted' : 'failed';
      throw new SchemaRegistryRequestError(`Schema registry request for ${what} ${reason}`, undefined, {
        cause: requestCause('fetch', error),
      });
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok && response.status !== 404)
      throw new SchemaRegistryRequestError(
        `Schema registry answered ${response.status} for ${what}`,
        response.status,
      );
    return { status: response.status, body };
  }
}

/** A reference as the registry lists it: the name the schema uses, and where the schema is. */
interface RawReference {
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** A schema as `GET /schemas/ids/{id}` and `GET /subjects/{subject}/versions/{version}` answer it. */
interface SchemaAnswer {
  readonly type: RegisteredSchema['type'];
  readonly definition: string;
  readonly references: readonly RawReference[];
}

/** Deeper than any real schema's references, shallow enough that a cycle ends at once. */
const MAX_REFERENCE_DEPTH = 32;
/** Distinct schemas one schema may reference, directly or not. */
const MAX_REFERENCES = 256;

function versionKey(reference: RawReference): string {
  return `${reference.subject}\u0000${reference.version}`;
}

/** The schema, its type and its references in a registry answer, or a request error naming `what`. */
function readAnswer(body: unknown, what: string, status: number): SchemaAnswer {
  const { schema, schemaType, references } = (body ?? {}) as {
    schema?: unknown;
    schemaType?: unknown;
    references?: unknown;
  };
  if (typeof schema !== 'string')
    throw new SchemaRegistryRequestError(`Schema registry answer for ${what} has no schema`, status);
  // Confluent omits schemaType for Avro, the original format.
  const type = schemaType === undefined || schemaType === null ? 'AVRO' : schemaType;
  if (type !== 'AVRO' && type !== 'PROTOBUF' && type !== 'JSON')
    throw new SchemaRegistryRequestError(
      `Schema registry answer for ${what} has an unknown schemaType`,
      status,
    );
  if (references === undefined || references === null) return { type, definition: schema, references: [] };
  if (!Array.isArray(references) || !references.every(isRawReference))
    throw new SchemaRegistryRequestError(
      `Schema registry answer for ${what} has references that are not { name, subject, version }`,
      status,
    );
  return { type, definition: schema, references };
}

function isRawReference(value: unknown): value is RawReference {
  const { name, subject, version } = (value ?? {}) as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    typeof subject === 'string' &&
    subject !== '' &&
    Number.isSafeInteger(version) &&
    (version as number) > 0
  );
}

function notTheApi(what: string): SchemaRegistryRequestError {
  return new SchemaRegistryRequestError(
    `Schema registry answered 404 for ${what} without a Confluent error code for it: ${NOT_THE_API}`,
    404,
  );
}

/**
 * Confluent's error code for an id the registry has no schema for, in the JSON body of the 404 that
 * `GET /schemas/ids/{id}` answers (Confluent's REST API reference, "GET /schemas/ids/{int: id}":
 * https://docs.confluent.io/platform/current/schema-registry/develop/api.html).
 * Any other 404 (a web server's, or a registry's for an unknown path: Apicurio answers `error_code`
 * 404 or 0 there) says the URL is not the registry's API, not that the schema is unknown: the record
 * is retried, not dropped as `SCHEMA_NOT_FOUND`.
 */
const SCHEMA_NOT_FOUND = 40403;
/** `GET /subjects/{subject}/versions/{version}`'s codes for a subject, or a version of it, it does not have. */
const SUBJECT_NOT_FOUND = 40401;
const VERSION_NOT_FOUND = 40402;

/** What a 404 without a Confluent error code of its own suggests; the URL itself is not quoted (it may hold a key). */
const NOT_THE_API =
  "the URL may not be the registry's REST API: check the registry URL (Apicurio's is at /apis/ccompat/v7)";

/** The `error_code` of a Confluent error body, if the body is one. */
function confluentErrorCode(body: unknown): unknown {
  return typeof body === 'object' && body !== null
    ? (body as { error_code?: unknown }).error_code
    : undefined;
}

/**
 * A bearer token goes into the Authorization header: fetch refuses a header value with a control
 * character or beyond Latin-1, and its error quotes the header, the token. Visible ASCII holds every
 * token RFC 6750 allows (b64token, https://www.rfc-editor.org/rfc/rfc6750#section-2.1). Whitespace
 * around it (a token file's final newline) is dropped, as fetch drops it from any header value
 * (https://fetch.spec.whatwg.org/#concept-header-value-normalize).
 */
const BEARER_TOKEN = /^[\t\n\r ]*([\x21-\x7e]+)[\t\n\r ]*$/;

/** The token to send, or a request error naming `auth.bearerToken`, never the token. */
async function bearerToken(option: string | (() => string | Promise<string>)): Promise<string> {
  let token: unknown = option;
  if (typeof option === 'function') {
    try {
      token = await option();
    } catch (error) {
      throw new SchemaRegistryRequestError(
        'The schema registry auth.bearerToken function failed',
        undefined,
        {
          cause: requestCause('auth.bearerToken()', error),
        },
      );
    }
  }
  const valid = typeof token === 'string' ? BEARER_TOKEN.exec(token)?.[1] : undefined;
  if (valid === undefined)
    throw new SchemaRegistryRequestError(
      'The schema registry auth.bearerToken is not a token: it must be visible ASCII, without spaces or control characters',
    );
  return valid;
}
