/**
 * The one error table (docs/integrate/api-reference.md#errors). Every failure a client can see is one of these;
 * anything else becomes `internal` and its details stay in the log.
 */
export const ERRORS = {
  validation: { status: 400, message: 'The given data was invalid.' },
  badRequest: { status: 400, message: 'The request could not be read.' },
  notJsonObject: { status: 400, message: 'The request body must be a JSON object.' },
  unauthenticated: { status: 401, message: 'Unauthenticated.' },
  callbackRefused: { status: 401, message: 'The callback could not be authenticated.' },
  liveNotSetUp: { status: 400, message: 'Live payments are not set up on this gateway.' },
  publicKeyRefused: {
    status: 401,
    message: 'A public key can only create checkout sessions: use your secret key on your server.',
  },
  secretKeyRefused: {
    status: 401,
    message: 'This route takes a public key: a secret key must never be sent from a browser.',
  },
  transactionNotFound: { status: 404, message: 'Transaction not found.' },
  deliveryNotFound: { status: 404, message: 'Webhook delivery not found.' },
  eventNotFound: { status: 404, message: 'Event not found.' },
  liveStreamRefused: {
    status: 403,
    message:
      'Live events are not streamed by this gateway: listen with a test key, or have its operator set EVENTS_STREAM_LIVE=on.',
  },
  routeNotFound: { status: 404, message: 'Route not found.' },
  methodNotAllowed: { status: 405, message: 'Method not allowed.' },
  wrongState: { status: 409, message: 'The record is not in a state that allows this.' },
  requestTimeout: { status: 408, message: 'The request took too long to arrive.' },
  bodyTooLarge: { status: 413, message: 'Request body too large.' },
  rateLimited: { status: 429, message: 'Too many requests.' },
  tooManyConnections: { status: 429, message: 'Too many connections from your address.' },
  headersTooLarge: { status: 431, message: 'Request headers too large.' },
  internal: { status: 500, message: 'Internal server error.' },
  unavailable: { status: 503, message: 'Service temporarily unavailable.' },
  overloaded: { status: 503, message: 'The gateway is busy: try again in a moment.' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Field name → Laravel-style messages, e.g. `{"amount":["The amount must be an integer."]}`. */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  readonly status: number;
  readonly body: string | FieldErrors;

  /** `body`: the field errors, or a message saying more than the table's. */
  constructor(
    readonly code: ErrorCode,
    body?: FieldErrors | string,
  ) {
    super(ERRORS[code].message);
    this.status = ERRORS[code].status;
    this.body = body ?? ERRORS[code].message;
  }

  static field(field: string, message: string): ApiError {
    return new ApiError('validation', { [field]: [message] });
  }
}

/** Laravel prints a field's name with underscores as spaces: `callback_url` → `callback url`. */
export function fieldLabel(field: string): string {
  return field.replace(/_/g, ' ');
}
