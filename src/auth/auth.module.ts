import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { AuthController } from './auth.controller.js';
import { AuthRepository } from './auth.repository.js';
import { AuthService } from './auth.service.js';
import { AccessGuard } from './guards/access.guard.js';
import { CredentialRoutes } from './guards/credential-routes.js';
import { resolveJwtSecret } from './jwt-secret.js';
import { LoginChallenges } from './login-challenges.js';
import { SessionKeyRevocation } from './session-key-revocation.js';
import { SessionRevocations } from './session-revocations.service.js';
import { SessionTokenService } from './session-token.service.js';
import { SignerRecovery } from './signature/signer-recovery.js';
import { WalletSignatureVerifier } from './signature/wallet-signature.verifier.js';
import { JwtHeaderStrategy } from './strategies/jwt-header.strategy.js';
import { SessionCookieStrategy } from './strategies/session-cookie.strategy.js';
import { SessionPrincipals } from './strategies/session-principals.js';

/**
 * Wallet login, the session strategies and the global access guard. Global so that feature modules can use
 * `@Authenticated`, the principal and the token service without importing it.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [AuthController],
  providers: [
    AuthService,
    AuthRepository,
    SessionTokenService,
    SessionRevocations,
    SessionKeyRevocation,
    SessionPrincipals,
    CredentialRoutes,
    JwtHeaderStrategy,
    SessionCookieStrategy,
    {
      provide: LoginChallenges,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new LoginChallenges(resolveJwtSecret(config), {
          domain: config.authDomain,
          uri: config.authUri,
          chainId: config.authChainId,
          ttlSeconds: config.authNonceTtlSeconds,
        }),
    },
    {
      provide: SignerRecovery,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SignerRecovery({ threads: config.authVerifyThreads }),
    },
    {
      provide: WalletSignatureVerifier,
      inject: [APP_CONFIG, SignerRecovery],
      useFactory: (config: AppConfig, recovery: SignerRecovery) =>
        new WalletSignatureVerifier({
          rpcUrl: config.chainRpcUrl,
          timeoutMs: config.chainRpcTimeoutMs,
          recovery,
        }),
    },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  // WalletSignatureVerifier: automatic renewal checks a mandate's signature as sign-in checks a login's.
  exports: [
    AuthRepository,
    SessionTokenService,
    CredentialRoutes,
    SessionKeyRevocation,
    WalletSignatureVerifier,
  ],
})
export class AuthModule {}
