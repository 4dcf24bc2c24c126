// A table that renders only the rows in view (fixed row height), so a list of thousands of objects costs
// as much as one screenful; arrow keys (or j/k) move the selection, Enter opens it. Ages count on between
// the server's updates, from each object's creationTimestamp, as kubectl prints them.
import { useEffect, useRef, useState } from "preact/hooks";
import { humanDuration } from "../../table/duration.ts";
import type { Column, Row } from "./live.ts";

const ROW_HEIGHT = 30;
const OVERSCAN = 8;

export interface VTableProps {
  columns: Column[];
  rows: Row[];
  onOpen: (row: Row) => void;
  /** Whether the keyboard moves this table's selection (the page's main table only). */
  keys?: boolean;
}

export function VTable({ columns, rows, onOpen, keys = true }: VTableProps) {
  const box = useRef<HTMLDivElement>(null);
  const [scroll, setScroll] = useState(0);
  const [height, setHeight] = useState(600);
  const [selected, setSelected] = useState(0);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    const el = box.current!;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // The key handler reads what the last render showed (effects run only after paint, later than a fast
  // key press), and a step is seen by the next key at once.
  const latest = useRef({ rows, onOpen, selected });
  latest.current = { rows, onOpen, selected };
  useEffect(() => {
    if (!keys) return;
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).closest("input, textarea, select")) return;
      const cur = latest.current;
      const step = e.key === "ArrowDown" || e.key === "j" ? 1 : e.key === "ArrowUp" || e.key === "k" ? -1 : 0;
      if (step) {
        e.preventDefault();
        const next = Math.max(0, Math.min(cur.rows.length - 1, cur.selected + step));
        cur.selected = next;
        setSelected(next);
        const el = box.current!;
        const top = (next + 1) * ROW_HEIGHT;
        if (top < el.scrollTop + ROW_HEIGHT * 2) el.scrollTop = top - ROW_HEIGHT * 2;
        else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
      } else if (e.key === "Enter" && cur.rows[cur.selected]) cur.onOpen(cur.rows[cur.selected]);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [keys]);
  const first = Math.max(0, Math.floor(scroll / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scroll + height) / ROW_HEIGHT) + OVERSCAN);
  const shown = columns.map((c, i) => [c, i] as const).filter(([c]) => !c.priority);
  const age = columns.findIndex((c) => c.name === "Age");
  const text = (r: Row, ci: number) => {
    const created = ci === age && r.object?.metadata?.creationTimestamp;
    return created ? humanDuration(now - Date.parse(created)) : cell(r.cells[ci]);
  };
  return (
    <div class="vtable" ref={box} onScroll={(e) => setScroll((e.target as HTMLElement).scrollTop)} role="grid" aria-rowcount={rows.length}>
      <table>
        <thead>
          <tr>{shown.map(([c]) => <th key={c.name} title={c.description}>{c.name.toUpperCase()}</th>)}</tr>
        </thead>
        <tbody>
          <tr style={{ height: `${first * ROW_HEIGHT}px` }} aria-hidden="true" />
          {rows.slice(first, last).map((r, i) => (
            <tr key={r.key} class={first + i === selected ? "row selected" : "row"} data-name={r.object?.metadata?.name}
              onClick={() => { setSelected(first + i); onOpen(r); }}>
              {shown.map(([c, ci]) => <td key={c.name}>{text(r, ci)}</td>)}
            </tr>
          ))}
          <tr style={{ height: `${(rows.length - last) * ROW_HEIGHT}px` }} aria-hidden="true" />
        </tbody>
      </table>
    </div>
  );
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}
