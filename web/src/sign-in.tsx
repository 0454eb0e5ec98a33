import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Session } from './api';
import { Button, ErrorNote, Notice, useAction } from './ui';
import { connect, personalSign, rememberWallet, watchWallets, type Wallet } from './wallet';

/**
 * Sign-In with Ethereum: connect the wallet, ask the service for a challenge (an EIP-4361 message), have the wallet
 * sign it, send the signature. The service answers with the HttpOnly session cookie, which carries every later call.
 */
export function SignIn(props: { message?: string; onSignedIn(session: Session): void }) {
  const [wallets, setWallets] = useState<Wallet[]>();
  const [step, setStep] = useState<string>();
  const signIn = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  // Arriving here from the dashboard (signed out, session ended), the button that had focus is gone.
  useEffect(() => {
    if (props.message) heading.current?.focus();
  }, []);

  useEffect(() => {
    const stop = watchWallets(setWallets);
    // Wallets announce themselves right after an EIP-6963 request; give slow ones a moment before saying "none".
    const timer = setTimeout(() => setWallets((current) => current ?? []), 600);
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, []);

  const start = (wallet: Wallet) =>
    signIn.run(async () => {
      try {
        setStep('Waiting for the wallet to connect…');
        const address = await connect(wallet);
        setStep('Preparing the sign-in message…');
        const challenge = await api.requestNonce(address);
        setStep('Approve the signature request in your wallet…');
        const signature = await personalSign(wallet, address, challenge.message);
        setStep('Checking the signature…');
        await api.verify(address, signature, challenge.message);
        rememberWallet(wallet);
        props.onSignedIn(await api.session());
      } finally {
        setStep(undefined);
      }
    });

  return (
    <main class="signin">
      <div class="card signin-card">
        <div class="brand brand-large">
          <span class="logo" aria-hidden="true">
            T
          </span>
          Tollgate
        </div>
        <h1 tabIndex={-1} ref={heading}>
          Sign in with your wallet
        </h1>
        <p class="muted">
          Manage your subscription, API keys and webhooks. Signing in costs nothing: your wallet signs a
          message, no transaction is sent.
        </p>
        {props.message && <Notice kind="info">{props.message}</Notice>}
        {wallets === undefined && <p class="muted">Looking for wallets…</p>}
        {wallets?.length === 0 && (
          <Notice kind="warning">
            <strong>No wallet found.</strong> Install a browser wallet that supports Ethereum (for example
            MetaMask, Rabby or Coinbase Wallet), then reload this page.
          </Notice>
        )}
        {wallets && wallets.length > 0 && (
          <div class="wallets">
            {wallets.map((wallet) => (
              <Button
                key={wallet.id}
                variant="primary"
                onClick={() => start(wallet)}
                busy={signIn.busy}
                busyLabel={step ?? 'Signing in…'}
              >
                {wallet.icon && <img src={wallet.icon} alt="" width={20} height={20} />}
                Sign in with {wallet.name}
              </Button>
            ))}
          </div>
        )}
        <ErrorNote text={signIn.error} />
      </div>
      <p class="muted small footer-note">
        Integrating from a server? See the <a href="/docs">API documentation</a>.
      </p>
    </main>
  );
}
