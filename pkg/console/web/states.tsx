// What the page shows instead of data: loading, empty, forbidden, disconnected (with the next retry), gone.
import type { ApiError } from "./api.ts";

export function ErrorState({ error, retryIn }: { error: ApiError; retryIn?: number }) {
  const { code, reason, message } = error.status;
  if (code === 403) {
    return <div class="state forbidden" role="alert"><h2>Forbidden</h2><p>{message}</p><p class="hint">Your kubeconfig's user is not allowed this; ask for a Role that grants it.</p></div>;
  }
  if (code === 401) return <div class="state forbidden" role="alert"><h2>Not signed in</h2><p>{message}</p></div>;
  if (retryIn !== undefined) {
    return <div class="banner disconnected" role="status">Disconnected ({message}); reconnecting in {retryIn} s…</div>;
  }
  return <div class="state error" role="alert"><h2>{reason ?? `Error ${code}`}</h2><p>{message}</p></div>;
}

export const Loading = () => <div class="state loading">Loading…</div>;
export const Empty = ({ what }: { what: string }) => <div class="state empty">No {what} here.</div>;
