import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { WalletError } from './wallet';

/** What an action failed with, as the text to show: the API's `error`, or the wallet's explanation. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError || error instanceof WalletError) return error.message;
  return error instanceof Error ? `Something went wrong: ${error.message}` : 'Something went wrong.';
}

export interface Action {
  busy: boolean;
  error: string | undefined;
  /** Runs `task` unless one is already running; errors land in `error` (never thrown at the page). */
  run(task: () => Promise<void>): Promise<void>;
  clear(): void;
}

/** The loading and error state of one button or form. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // A ref, not state: a second click that lands before the re-render must still see the first one running.
  const running = useRef(false);
  return {
    busy,
    error,
    clear: () => setError(undefined),
    run: async (task) => {
      if (running.current) return;
      running.current = true;
      setBusy(true);
      setError(undefined);
      try {
        await task();
      } catch (caught) {
        setError(errorText(caught));
      } finally {
        running.current = false;
        setBusy(false);
      }
    },
  };
}

/** 128 random bits as hex (crypto.randomUUID exists only in secure contexts; a LAN http deployment is not one). */
function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

/**
 * Sends one intent (one renew, one cancel) with an Idempotency-Key that stays the same until the service has
 * answered: a repeated click, or a retry after a lost connection, is then replayed by the service instead of
 * paying twice. Any answer, success or error, ends the intent.
 */
export function useIdempotentSend(): <T>(request: (key: string) => Promise<T>) => Promise<T> {
  const current = useRef<string | undefined>(undefined);
  return async (request) => {
    current.current ??= randomKey();
    try {
      const result = await request(current.current);
      current.current = undefined;
      return result;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 0)) current.current = undefined;
      throw error;
    }
  };
}

type ButtonProps = {
  busy?: boolean;
  busyLabel?: string;
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  children: ComponentChildren;
} & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'>;

export function Button({ busy, busyLabel, variant = 'secondary', children, disabled, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      class={`btn btn-${variant}`}
      disabled={Boolean(disabled) || busy}
      aria-busy={busy ? 'true' : undefined}
      {...rest}
    >
      {busy ? (
        <>
          <span class="spinner" aria-hidden="true" />
          {busyLabel ?? children}
        </>
      ) : (
        children
      )}
    </button>
  );
}

export function ErrorNote({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <p class="note note-error" role="alert">
      {text}
    </p>
  );
}

export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'success' | 'warning';
  children: ComponentChildren;
}) {
  return (
    <div class={`note note-${kind}`} role={kind === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(value: string): string {
  return dateFormat.format(new Date(value));
}

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** "Dec 22, 2026": the day alone, for buttons and badges (the full time is in the facts and the dialogs). */
export function formatDay(value: string): string {
  return dayFormat.format(new Date(value));
}

export function DateTime({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span class="muted">{empty}</span>;
  return (
    <time dateTime={value} title={value}>
      {formatDate(value)}
    </time>
  );
}

export function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/**
 * A modal confirmation (native <dialog>: focus trapped, Escape cancels). Each instance titles itself with an id of
 * its own, so a page holding several dialogs announces each with its own title.
 */
export function Confirm(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  busyLabel?: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onCancel={props.onCancel}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      <div class="actions">
        {/* Enter on a destructive dialog keeps things as they are; elsewhere it confirms. */}
        <Button variant="ghost" onClick={props.onCancel} autoFocus={props.danger} disabled={props.busy}>
          {props.cancelLabel ?? 'Keep it'}
        </Button>
        <Button
          variant={props.danger ? 'danger' : 'primary'}
          onClick={props.onConfirm}
          autoFocus={!props.danger}
          busy={props.busy}
          busyLabel={props.busyLabel}
        >
          {props.confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * "in 3 days", "in 5 hours", "in less than an hour": how far off `value` is, for people. A day or more away, days
 * count calendar days in the viewer's time zone, so the end of a day picked ten days ahead reads "in 10 days".
 */
export function timeUntil(value: string, now = Date.now()): string {
  const end = new Date(value);
  const left = end.getTime() - now;
  if (left >= DAY_MS) {
    const today = new Date(now);
    const days = Math.round(
      (Date.UTC(end.getFullYear(), end.getMonth(), end.getDate()) -
        Date.UTC(today.getFullYear(), today.getMonth(), today.getDate())) /
        DAY_MS,
    );
    return `in ${days} ${days === 1 ? 'day' : 'days'}`;
  }
  const hours = Math.floor(left / (60 * 60 * 1000));
  if (hours >= 1) return `in ${hours} ${hours === 1 ? 'hour' : 'hours'}`;
  return 'in less than an hour';
}

/** A secret shown once: read-only field, copy button, and the warning that it cannot be shown again. */
export function OneTimeSecret(props: { label: string; value: string; what: string; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      field.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div class="secret" role="region" aria-label={props.label}>
      <p class="secret-warning">
        <strong>Copy {props.what} now.</strong> It will not be shown again: Tollgate keeps only a fingerprint
        of it.
      </p>
      <label class="field">
        <span>{props.label}</span>
        <div class="copy-row">
          <input
            ref={field}
            readOnly
            value={props.value}
            class="mono"
            onFocus={(event) => event.currentTarget.select()}
          />
          <Button variant="primary" onClick={copy}>
            {copied ? 'Copied' : 'Copy'}
          </Button>
        </div>
      </label>
      <div class="actions">
        <Button onClick={props.onDone}>I have stored it</Button>
      </div>
    </div>
  );
}
