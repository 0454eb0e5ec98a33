import { useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { Button, Confirm, ErrorNote, useAction } from './ui';

/** A 401 after a sign-out means the session had already ended: it is over either way. */
export function endedAlready(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/** "Sign out everywhere": every session of the wallet ends, after a confirmation. */
export function SignOutEverywhere(props: { disabled?: boolean; onSignedOut(message: string): void }) {
  const [confirming, setConfirming] = useState(false);
  const everywhere = useAction();

  const doEverywhere = () =>
    everywhere.run(async () => {
      try {
        await api.logoutEverywhere();
      } catch (error) {
        if (!endedAlready(error)) throw error;
      }
      props.onSignedOut(
        'You signed out everywhere: every session of this wallet has ended, in this browser and in any other.',
      );
    });

  const close = () => {
    setConfirming(false);
    everywhere.clear();
  };

  return (
    <>
      <Button variant="ghost" onClick={() => setConfirming(true)} disabled={props.disabled}>
        Sign out everywhere
      </Button>
      <Confirm
        open={confirming}
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        cancelLabel="Stay signed in"
        busy={everywhere.busy}
        busyLabel="Signing out…"
        onConfirm={doEverywhere}
        onCancel={close}
      >
        <p>
          Every session of this wallet ends, here and in any other browser or device. Signing in again works
          as usual. Your API keys keep working.
        </p>
        <ErrorNote text={everywhere.error} />
      </Confirm>
    </>
  );
}
