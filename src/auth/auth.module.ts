import { Global, Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { APP_GUARD } from '@nestjs/core';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { AuthController } from './auth.controller.js';
import { AuthRepository } from './auth.repository.js';
import { AuthService } from './auth.service.js';
import { AuthenticationGuard } from './guards/authentication.guard.js';
import { ScopeGuard } from './guards/scope.guard.js';
import { resolveJwtSecret } from './jwt-secret.js';
import { LoginChallenges } from './login-challenges.js';
import { SessionRevocations } from './session-revocations.service.js';
import { SessionTokenService } from './session-token.service.js';
import { SignerRecovery } from './signature/signer-recovery.js';
import { WalletSignatureVerifier } from './signature/wallet-signature.verifier.js';
import { JwtSessionStrategy } from './strategies/jwt-session.strategy.js';

/**
 * Wallet login and the global guards. Global so that feature modules can use `@Authenticated`, the principal and
 * the token service without importing it.
 */
@Global()
@Module({
  // The API-key strategy lives with the keys; the guard here uses it for Bearer tokens that look like keys.
  imports: [ApiKeysModule],
  controllers: [AuthController],
  providers: [
    AuthService,
    AuthRepository,
    SessionTokenService,
    SessionRevocations,
    JwtSessionStrategy,
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
    // Order matters: authentication sets the principal the scope guard reads.
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: ScopeGuard },
  ],
  exports: [AuthRepository, SessionTokenService],
})
export class AuthModule {}
