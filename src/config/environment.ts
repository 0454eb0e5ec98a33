import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['true', '1', 'yes'].includes(text)) return true;
  if (['false', '0', 'no'].includes(text)) return false;
  return value;
};
const toInt = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  return /^-?\d+$/.test(String(value).trim()) ? Number(value) : value;
};
const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/**
 * The environment the service reads, one property per variable (README "Configuration" lists them all).
 * Every value arrives as a string; the transforms turn the numeric and boolean ones into their types first, so
 * that a bad value is reported against its variable name.
 */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  HOST?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// connection URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  DATA_DIR?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 bytes long' })
  JWT_SECRET?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(31_536_000)
  JWT_TTL_SECONDS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[^\s/]+$/, {
    message: 'AUTH_DOMAIN must be a host with an optional port, such as app.example.com',
  })
  AUTH_DOMAIN?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'AUTH_URI must be an absolute URI' })
  AUTH_URI?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  AUTH_CHAIN_ID?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(86_400)
  AUTH_NONCE_TTL_SECONDS?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  AUTH_REQUIRE_SIWE?: boolean;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAIN_RPC_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  CHAIN_RPC_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(64)
  AUTH_VERIFY_THREADS?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  COOKIE_SECURE?: boolean;

  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  @IsOptional()
  @IsString()
  OPERATOR_ADDRESSES?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SUBSCRIPTION_PERIOD_SECONDS?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP?: boolean;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE?: boolean;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_WORKERS?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  WEB_CONCURRENCY?: number;

  @IsOptional()
  @IsIn(['default'])
  PAYMENT_GATEWAY?: string;
}
