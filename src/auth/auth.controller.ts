import { Body, Controller, Get, HttpCode, HttpStatus, Inject, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '../common/http/api-tag.js';
import type { FastifyReply } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import { AuthService } from './auth.service.js';
import { Authenticated } from './decorators/authenticated.decorator.js';
import { CurrentPrincipal } from './decorators/current-principal.decorator.js';
import { Public } from './decorators/public.decorator.js';
import { NonceRequestDto, NonceResponseDto } from './dto/nonce.dto.js';
import {
  CurrentSessionDto,
  LogoutEverywhereRequestDto,
  LogoutEverywhereResponseDto,
  LogoutResponseDto,
  SessionResponseDto,
  VerifyRequestDto,
} from './dto/verify.dto.js';
import type { Principal } from './principal.js';
import { ALL_SCOPES } from './scopes.js';
import { SESSION_COOKIE, sessionCookieOptions } from './session-cookie.js';

@ApiTag('auth', {
  description: 'Wallet sign-in (Sign-In with Ethereum), the current session, sign-out.',
  place: 'first',
})
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('nonce')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    operationId: 'requestNonce',
    summary: 'Start a wallet login: get a single-use nonce and the EIP-4361 message to sign.',
    description:
      'The challenge is single use and lives AUTH_NONCE_TTL_SECONDS (600 s by default) from its `issuedAt`, the start of the current slot of half that length, so at least half of it is left. Requesting a nonce never invalidates one already handed out: within a slot every request for an address returns the same challenge (nothing is stored; the nonce is a server-side MAC over the address, the times and the message), and after a login uses it the next request returns a new one.',
  })
  @ApiOkResponse({ type: NonceResponseDto, description: 'The challenge to sign.' })
  @ApiErrors({ 400: ['validation_failed', 'invalid_json'] })
  async requestNonce(@Body() body: NonceRequestDto): Promise<NonceResponseDto> {
    const challenge = await this.auth.issueChallenge(body.address);
    return {
      nonce: challenge.nonce,
      message: challenge.message,
      issuedAt: challenge.issuedAt.toISOString(),
      expiresAt: challenge.expiresAt.toISOString(),
    };
  }

  @Post('verify')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    operationId: 'verifySignature',
    summary: 'Finish a wallet login: verify the signature and open a 24-hour session.',
    description:
      'The signature is an EIP-191 personal_sign signature over the EIP-4361 message from POST /auth/nonce (recommended) or over the bare nonce. Ordinary wallets are checked locally; smart wallets (ERC-1271 deployed, ERC-6492 counterfactual) through CHAIN_RPC_URL. Success consumes the challenge and sets the HTTP-only `tg_session` cookie.',
  })
  @ApiOkResponse({
    type: SessionResponseDto,
    description: 'The session: its JWT and expiry, also set as a cookie.',
    headers: {
      'Set-Cookie': {
        description:
          '`tg_session=<jwt>; Max-Age=<seconds to expiry>; Path=/; HttpOnly; Secure; SameSite=Lax`',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json'],
    401: ['challenge_not_found', 'invalid_signature', 'signature_unverifiable'],
  })
  async verifySignature(
    @Body() body: VerifyRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionResponseDto> {
    const session = await this.auth.verify(body.address, body.signature, body.message);
    const maxAgeSeconds = Math.max(0, Math.round((session.expiresAt.getTime() - Date.now()) / 1000));
    void reply.setCookie(
      SESSION_COOKIE,
      session.token,
      sessionCookieOptions(this.config.cookieSecure, maxAgeSeconds),
    );
    return { token: session.token, expiresAt: session.expiresAt.toISOString() };
  }

  @Post('logout')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ALL_SCOPES, jwtOnly: true })
  @ApiOperation({
    operationId: 'logout',
    summary: 'End the session: revoke this JWT on every instance until it expires, and clear the cookie.',
    description:
      'Only a session (JWT, header or cookie) can end itself; API keys are revoked with POST /api-keys/revoke.',
  })
  @ApiOkResponse({ type: LogoutResponseDto, description: 'The session is revoked and the cookie cleared.' })
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LogoutResponseDto> {
    await this.auth.logout(principal);
    void reply.setCookie(SESSION_COOKIE, '', sessionCookieOptions(this.config.cookieSecure, 0));
    return { revoked: true };
  }

  @Post('logout-all')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ALL_SCOPES, jwtOnly: true })
  @ApiOperation({
    operationId: 'logoutEverywhere',
    summary: "Sign out everywhere: end every session of the caller's wallet, on every instance (addition).",
    description:
      'Every session token of the wallet issued before the answer, this one included, is refused (401 `token_revoked`) from its next request on, on every instance, however close in time to a previous sign-out (tokens carry the wallet\'s session generation, `gen`); the cookie is cleared. Signing in again afterwards works at once. By default API keys are not affected, including those created by the ended sessions: they are the integrator\'s production credentials. With `{"revokeKeys": true}` (addition) the keys created by a session of the wallet, and the keys those keys created, are revoked in the same transaction, each with its `api_key.revoked` event; keys created otherwise stay. Without it, review the keys in GET /api-keys/list (`createdBy`) and revoke the ones you do not recognise. A key being created by a request authenticated before the sign-out may commit after it and stay live: check the listing. Needs a session: an API key cannot sign its wallet out. The body is optional.',
  })
  @ApiBody({ type: LogoutEverywhereRequestDto, required: false })
  @ApiOkResponse({ type: LogoutEverywhereResponseDto })
  @ApiErrors({ 400: ['validation_failed', 'invalid_json'] })
  async logoutEverywhere(
    @CurrentPrincipal() principal: Principal,
    @Body() body: LogoutEverywhereRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LogoutEverywhereResponseDto> {
    const now = new Date();
    const revokedKeys = await this.auth.logoutEverywhere(principal, {
      revokeKeys: body.revokeKeys ?? false,
      now,
    });
    void reply.setCookie(SESSION_COOKIE, '', sessionCookieOptions(this.config.cookieSecure, 0));
    return { revoked: true, notBefore: now.toISOString(), revokedKeys };
  }

  @Get('session')
  @Authenticated({ scopes: ALL_SCOPES })
  @ApiOperation({
    operationId: 'getSession',
    summary:
      'Who is calling: the wallet, credential kind and scopes of the presented JWT or API key (addition).',
    description:
      'Answers for any valid credential: a dashboard uses it to learn who is signed in from the cookie alone, an ' +
      'integrator to check what its key may do.',
  })
  @ApiOkResponse({ type: CurrentSessionDto, description: 'Who the credential acts for, and how.' })
  getSession(@CurrentPrincipal() principal: Principal): CurrentSessionDto {
    return {
      address: principal.address,
      via: principal.via,
      scopes: [...principal.scopes],
      operator: principal.operator,
      expiresAt: principal.tokenExpiresAt?.toISOString() ?? null,
    };
  }
}
