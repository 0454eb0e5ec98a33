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
  const [revokeKeys, setRevokeKeys] = useState(false);
  const everywhere = useAction();

  const doEverywhere = () =>
    everywhere.run(async () => {
      let revoked = 0;
      try {
        revoked = (await api.logoutEverywhere(revokeKeys)).revokedKeys;
      } catch (error) {
        if (!endedAlready(error)) throw error;
      }
      const keys = !revokeKeys
        ? ' Your API keys still work.'
        : revoked === 0
          ? ' No API key made while signed in was left to revoke.'
          : ` ${revoked === 1 ? '1 API key' : `${revoked} API keys`} made while signed in ${revoked === 1 ? 'was' : 'were'} revoked.`;
      props.onSignedOut(
        `You signed out everywhere: every session of this wallet has ended, in this browser and in any other.${keys}`,
      );
    });

  const close = () => {
    setConfirming(false);
    setRevokeKeys(false);
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
          as usual.
        </p>
        <label class="check dialog-check">
          <input
            type="checkbox"
            name="revokeKeys"
            checked={revokeKeys}
            onChange={(event) => setRevokeKeys(event.currentTarget.checked)}
          />
          <span>
            Also revoke the API keys made while signed in
            <span class="small muted block">
              In case someone else used one of your sessions. Servers using those keys stop working.
            </span>
          </span>
        </label>
        <ErrorNote text={everywhere.error} />
      </Confirm>
    </>
  );
}
