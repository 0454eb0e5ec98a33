import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { ApiError } from '../../common/errors/api-error.js';
import { classifyAddress } from './ip-classifier.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface WebhookUrlGuardOptions {
  allowHttp: boolean;
  allowPrivate: boolean;
  /**
   * Outside production: a refusal that a setting would lift names it (`details.setting`), so a developer pointing
   * a webhook at a local receiver learns what to change. Production answers never mention settings.
   */
  nameSettings?: boolean;
  resolver?: HostResolver;
}

/** A URL that passed every check, with the addresses it was checked against. */
export interface CheckedWebhookUrl {
  url: URL;
  addresses: ResolvedAddress[];
  /** Every address is public: none of them was let through only by WEBHOOK_ALLOW_PRIVATE. */
  public: boolean;
}

const systemResolver: HostResolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

function invalid(message: string, reason: string): ApiError {
  return ApiError.badRequest('webhook_url_invalid', message, { reason });
}

const FORBIDDEN = 'The webhook URL points to a loopback, private or otherwise non-public address';

function forbidden(reason: string): ApiError {
  return ApiError.badRequest('webhook_url_forbidden', FORBIDDEN, { reason });
}

/**
 * A refusal that `setting=true` would lift, saying so (development only). A local receiver usually needs both
 * settings, so the message names every one still off: the developer learns both from the first refusal, not one
 * per restart.
 */
function withSetting(error: ApiError, setting: string, off: readonly string[]): ApiError {
  const assignments = off.map((name) => `${name}=true`).join(' and ');
  return ApiError.badRequest(
    error.code,
    `${error.message} (development: set ${assignments} to send webhooks to a local receiver)`,
    { ...error.details, setting },
  );
}

/** The URL host as a socket wants it: IPv6 literals without their brackets. */
export function socketHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

// RFC 6761 reserves these names for loopback; refusing them by name means no resolver is ever asked.
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Decides whether the service may send webhooks to a URL: syntax at registration (`parse`), and the
 * addresses the host resolves to both at registration and before every delivery (`check`), so a host whose
 * DNS later turns to an internal address is caught.
 */
export class WebhookUrlGuard {
  private readonly allowHttp: boolean;
  private readonly allowPrivate: boolean;
  private readonly nameSettings: boolean;
  private readonly resolver: HostResolver;

  constructor(options: WebhookUrlGuardOptions) {
    this.allowHttp = options.allowHttp;
    this.allowPrivate = options.allowPrivate;
    this.nameSettings = options.nameSettings ?? false;
    this.resolver = options.resolver ?? systemResolver;
  }

  /** Syntax checks only; throws `webhook_url_invalid`. */
  parse(input: string): URL {
    if (typeof input !== 'string' || input.length === 0) {
      throw invalid('The webhook URL is required', 'malformed');
    }
    if (input.length > WEBHOOK_URL_MAX_LENGTH) {
      throw invalid(`The webhook URL must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`, 'too_long');
    }
    // The URL parser would silently strip or drop these, so what is stored would differ from what was sent.
    if (/[\s\p{Cc}]/u.test(input)) {
      throw invalid('The webhook URL must not contain whitespace or control characters', 'malformed');
    }
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw invalid('The webhook URL is not a valid absolute URL', 'malformed');
    }
    if (url.protocol === 'http:') {
      if (!this.allowHttp)
        throw this.lifted(
          invalid('The webhook URL must use https', 'http_not_allowed'),
          'WEBHOOK_ALLOW_HTTP',
        );
    } else if (url.protocol !== 'https:') {
      throw invalid(
        this.allowHttp ? 'The webhook URL must use https or http' : 'The webhook URL must use https',
        'unsupported_scheme',
      );
    }
    if (url.username !== '' || url.password !== '') {
      throw invalid('The webhook URL must not contain credentials', 'credentials');
    }
    if (url.port === '0') {
      throw invalid('The webhook URL port must be between 1 and 65535', 'malformed');
    }
    // Normalisation can lengthen the URL (punycode, percent-encoding); the stored form must fit too.
    if (url.href.length > WEBHOOK_URL_MAX_LENGTH) {
      throw invalid(`The webhook URL must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`, 'too_long');
    }
    return url;
  }

  /**
   * Parses, resolves and classifies every address of the host. Throws `webhook_url_invalid`,
   * `webhook_url_unresolvable` or `webhook_url_forbidden` (with `details.reason`). The resolved addresses
   * are returned so a caller can connect to exactly these and nothing resolved later.
   */
  async check(input: string): Promise<CheckedWebhookUrl> {
    const url = this.parse(input);
    const host = socketHost(url);
    if (!this.allowPrivate && isLocalhostName(host))
      throw this.lifted(forbidden('loopback'), 'WEBHOOK_ALLOW_PRIVATE');

    const addresses = await this.resolve(host);
    let allPublic = !isLocalhostName(host);
    for (const { address } of addresses) {
      const classification = classifyAddress(address);
      // An address that is not an IP at all is unusable even where private targets are allowed.
      if (classification.reason === 'invalid') throw forbidden('invalid');
      if (!classification.allowed && !this.allowPrivate) {
        throw this.lifted(forbidden(classification.reason ?? 'invalid'), 'WEBHOOK_ALLOW_PRIVATE');
      }
      allPublic &&= classification.allowed;
    }
    return { url, addresses, public: allPublic };
  }

  private lifted(error: ApiError, setting: string): ApiError {
    if (!this.nameSettings) return error;
    const off = [
      ...(this.allowHttp ? [] : ['WEBHOOK_ALLOW_HTTP']),
      ...(this.allowPrivate ? [] : ['WEBHOOK_ALLOW_PRIVATE']),
    ];
    return withSetting(error, setting, off);
  }

  private async resolve(host: string): Promise<ResolvedAddress[]> {
    const family = isIP(host);
    // WHATWG parsing has already turned every IPv4 spelling (0x7f.1, 2130706433, ...) into a dotted quad.
    if (family === 4 || family === 6) return [{ address: host, family }];

    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolver(host);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? 'lookup_failed';
      throw ApiError.badRequest('webhook_url_unresolvable', 'The webhook URL host could not be resolved', {
        reason,
      });
    }
    if (addresses.length === 0) {
      throw ApiError.badRequest('webhook_url_unresolvable', 'The webhook URL host could not be resolved', {
        reason: 'no_addresses',
      });
    }
    return addresses;
  }
}
