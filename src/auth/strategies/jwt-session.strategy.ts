import { Inject, Injectable } from '@nestjs/common';
import { Strategy } from 'passport-jwt';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { checksumAddress, isWalletAddress } from '../../common/address/wallet-address.js';
import { AuthErrors } from '../auth.errors.js';
import { SessionRevocations } from '../session-revocations.service.js';
import type { Principal } from '../principal.js';
import { ALL_SCOPES } from '../scopes.js';
import {
  JWT_ALGORITHM,
  JWT_AUDIENCE,
  JWT_ISSUER,
  SessionTokenService,
  type SessionClaims,
} from '../session-token.service.js';
import type { RequestCredential } from './request-credential.js';

/** The request as the strategies see it: the guard has already picked the credential out. */
export interface StrategyRequest {
  credential: RequestCredential;
}

/**
 * passport-jwt strategy for session tokens, from the Authorization header or the `tg_session` cookie: HS256 only,
 * issuer and audience checked, and a logged-out token refused.
 */
@Injectable()
export class JwtSessionStrategy extends Strategy {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    tokens: SessionTokenService,
    revocations: SessionRevocations,
  ) {
    super(
      {
        jwtFromRequest: (request: StrategyRequest) => request.credential.token,
        secretOrKey: tokens.key as unknown as string,
        algorithms: [JWT_ALGORITHM],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        passReqToCallback: true,
      },
      (
        request: StrategyRequest,
        claims: SessionClaims,
        done: (error: unknown, user?: Principal | false) => void,
      ) => {
        if (
          typeof claims.jti !== 'string' ||
          typeof claims.exp !== 'number' ||
          !isWalletAddress(claims.sub)
        ) {
          done(AuthErrors.invalidToken(), false);
          return;
        }
        revocations.isRevoked(claims.jti).then(
          (revoked) => {
            if (revoked) return done(AuthErrors.tokenRevoked(), false);
            const address = checksumAddress(claims.sub);
            done(null, {
              address,
              scopes: ALL_SCOPES,
              via: 'jwt',
              carrier: request.credential.carrier,
              operator: config.operatorAddresses.has(address.toLowerCase()),
              tokenId: claims.jti,
              tokenExpiresAt: new Date(claims.exp * 1000),
            });
          },
          (error: unknown) => done(error),
        );
      },
    );
  }
}
