// Editing an object's YAML: the text, then a diff against what the server holds, then a server-side apply
// as field manager kite-console. A conflict (409) lists each field and the manager that owns it, and lets
// the user take the fields over (force=true) or go back to the text.
import { useState } from "preact/hooks";
import { parse } from "yaml";
import { ApiError, type Res, objectPath, query, request } from "./api.ts";
import { diffLines, forEditing, toYaml } from "./text.ts";

export const FIELD_MANAGER = "kite-console";

type Step = { at: "text" } | { at: "diff" } | { at: "saved" } | { at: "conflict"; causes: { field?: string; message: string }[] } | { at: "error"; message: string };

export function Edit({ res, object }: { res: Res; object: any }) {
  const original = toYaml(forEditing(object));
  const [text, setText] = useState(original);
  const [step, setStep] = useState<Step>({ at: "text" });
  const save = async (force: boolean) => {
    try {
      parse(text);
    } catch (e) {
      return setStep({ at: "error", message: `The YAML does not parse: ${(e as Error).message}` });
    }
    try {
      const path = objectPath(res, object.metadata.namespace, object.metadata.name) + query({ fieldManager: FIELD_MANAGER, force });
      await request(path, { method: "PATCH", headers: { "content-type": "application/apply-patch+yaml", accept: "application/json" }, body: text });
      setStep({ at: "saved" });
    } catch (e) {
      const err = e as ApiError;
      if (err.code === 409) setStep({ at: "conflict", causes: err.status.details?.causes ?? [{ message: err.message }] });
      else setStep({ at: "error", message: err.message });
    }
  };
  if (step.at === "diff" || step.at === "conflict") {
    const lines = diffLines(original, text);
    return (
      <div class="edit">
        {step.at === "conflict" && (
          <div class="state conflict" role="alert">
            <h2>Conflict</h2>
            <p>Other field managers own fields this change sets:</p>
            <ul class="causes">{step.causes.map((c) => <li key={c.field ?? c.message}><code>{c.field}</code> {c.message}</li>)}</ul>
            <button class="danger" onClick={() => save(true)}>Take over these fields and save</button>
          </div>
        )}
        <pre class="diff">{lines.map((l, i) => <div key={i} class={l.op === "+" ? "add" : l.op === "-" ? "del" : ""}>{l.op} {l.text}</div>)}</pre>
        <div class="toolbar">
          <button onClick={() => setStep({ at: "text" })}>Back to editing</button>
          {step.at === "diff" && <button class="primary" onClick={() => save(false)} disabled={text === original}>Apply</button>}
        </div>
      </div>
    );
  }
  return (
    <div class="edit">
      {step.at === "saved" && <div class="banner ok" role="status">Saved by server-side apply (field manager {FIELD_MANAGER}).</div>}
      {step.at === "error" && <div class="banner error" role="alert">{step.message}</div>}
      <textarea class="yaml-editor" spellcheck={false} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      <div class="toolbar">
        <button class="primary" onClick={() => setStep({ at: "diff" })} disabled={text === original}>Review changes</button>
        <button onClick={() => { setText(original); setStep({ at: "text" }); }}>Discard</button>
      </div>
    </div>
  );
}
