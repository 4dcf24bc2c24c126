// The page's address: everything after `#` as query parameters (res, ns, name, tab), so a view can be
// bookmarked, reloaded and navigated with the browser's back button.
import { useEffect, useState } from "preact/hooks";

export interface Route { res?: string; ns?: string; name?: string; tab?: string }

export function parseRoute(hash = location.hash): Route {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const get = (k: string) => p.get(k) ?? undefined;
  return { res: get("res"), ns: get("ns"), name: get("name"), tab: get("tab") };
}

export function href(r: Route): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(r)) if (v !== undefined && v !== "") p.set(k, v);
  return `#${p.toString()}`;
}

export function go(r: Route) {
  location.hash = href(r);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(parseRoute());
  useEffect(() => {
    const on = () => setRoute(parseRoute());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}
