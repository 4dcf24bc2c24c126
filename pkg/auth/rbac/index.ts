// The RBAC objects of this server, indexed for authorization: Roles and ClusterRoles by name, and the
// bindings by the subjects they name (user, group, service account), so a decision reads only the
// bindings of the caller instead of scanning every binding. Fed by in-process watches of the registry.
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import type { UserInfo } from "../user.ts";
import { Informer } from "../../registry/informer.ts";
import type { PolicyRule } from "./rules.ts";

export const RBAC_GROUP = "rbac.authorization.k8s.io";

export interface Subject { kind: string; name: string; namespace?: string; apiGroup?: string }
export interface RoleRef { kind: string; name: string; apiGroup?: string }
export interface Binding { kind: "RoleBinding" | "ClusterRoleBinding"; name: string; namespace: string; roleRef: RoleRef; subjects: Subject[] }

export const serviceAccountUser = (ns: string, name: string) => `system:serviceaccount:${ns}:${name}`;

/** The index key a subject answers to: service accounts are users by their account name. */
function subjectKey(s: Subject, bindingNs: string): string | undefined {
  switch (s.kind) {
    case "User": return `u:${s.name}`;
    case "Group": return `g:${s.name}`;
    case "ServiceAccount": {
      const ns = s.namespace || bindingNs;
      return ns ? `u:${serviceAccountUser(ns, s.name)}` : undefined;
    }
  }
  return undefined;
}

/** The keys a user answers to. */
export const userKeys = (u: UserInfo) => [`u:${u.name}`, ...u.groups.map((g) => `g:${g}`)];

/**
 * userKeys, remembered per UserInfo object: an authenticator hands out the same object for the same
 * credential (static tokens, cached answers), so most requests build no key strings at all.
 */
const keysCache = new WeakMap<UserInfo, string[]>();
function keysOf(u: UserInfo): string[] {
  let k = keysCache.get(u);
  if (!k) keysCache.set(u, (k = userKeys(u)));
  return k;
}

/** True when the subject names the user (to say which subject a binding granted through). */
export function subjectApplies(s: Subject, bindingNs: string, u: UserInfo): boolean {
  const k = subjectKey(s, bindingNs);
  return !!k && userKeys(u).includes(k);
}

const notFound = (what: string, name: string) => new Error(`${what}.${RBAC_GROUP} ${JSON.stringify(name)} not found`);

/**
 * Bindings by scope (their namespace, "" for cluster bindings) and subject key. Each subject's bindings
 * are kept as a ready array, rebuilt when a binding naming it changes (rarely), so a decision only reads:
 * no key strings built, nothing copied when one key matches.
 */
class SubjectIndex {
  /** scope → subject key → binding id → binding */
  private bySubject = new Map<string, Map<string, Map<string, Binding>>>();
  /** scope → subject key → the same bindings as an array */
  private ready = new Map<string, Map<string, Binding[]>>();
  private keysOf = new Map<string, { scope: string; keys: string[] }>();

  put(id: string, b: Binding, scope: string) {
    this.drop(id);
    const keys = [...new Set(b.subjects.map((s) => subjectKey(s, b.namespace)).filter((k): k is string => !!k))];
    this.keysOf.set(id, { scope, keys });
    let byKey = this.bySubject.get(scope);
    if (!byKey) this.bySubject.set(scope, (byKey = new Map()));
    for (const k of keys) {
      let m = byKey.get(k);
      if (!m) byKey.set(k, (m = new Map()));
      m.set(id, b);
      this.refresh(scope, k, m);
    }
  }

  drop(id: string) {
    const was = this.keysOf.get(id);
    if (!was) return;
    const byKey = this.bySubject.get(was.scope)!;
    for (const k of was.keys) {
      const m = byKey.get(k)!;
      m.delete(id);
      if (!m.size) byKey.delete(k);
      this.refresh(was.scope, k, m);
    }
    if (!byKey.size) this.bySubject.delete(was.scope);
    this.keysOf.delete(id);
  }

  private refresh(scope: string, key: string, m: Map<string, Binding>) {
    let r = this.ready.get(scope);
    if (!r) this.ready.set(scope, (r = new Map()));
    if (m.size) r.set(key, [...m.values()]);
    else {
      r.delete(key);
      if (!r.size) this.ready.delete(scope);
    }
  }

  clear() { this.bySubject.clear(); this.ready.clear(); this.keysOf.clear(); }

  /** The bindings in scope naming any of the keys, each once. Callers only read the array. */
  find(scope: string, keys: string[]): readonly Binding[] {
    const r = this.ready.get(scope);
    if (!r) return NONE;
    let first: Binding[] | undefined, more: Binding[][] | undefined;
    for (const k of keys) {
      const hit = r.get(k);
      if (!hit) continue;
      if (!first) first = hit;
      else (more ??= []).push(hit);
    }
    if (!first) return NONE;
    if (!more) return first;
    // a binding naming both the user and one of its groups counts once
    const found = new Set(first);
    for (const hit of more) for (const b of hit) found.add(b);
    return [...found];
  }
}

const NONE: readonly Binding[] = [];

function bindingOf(o: Obj): Binding {
  return { kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace ?? "", roleRef: o.roleRef ?? {}, subjects: o.subjects ?? [] };
}

const id = (o: Obj) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

export class RbacIndex {
  private roles = new Map<string, PolicyRule[]>();
  private clusterRoles = new Map<string, Obj>();
  private clusterBindings = new SubjectIndex();
  private bindings = new SubjectIndex();
  private informers: Informer[] = [];
  /** Told of every ClusterRole change (the aggregation controller). */
  readonly clusterRoleWatchers: (() => void)[] = [];

  constructor(private registry: Registry) {}

  private store(plural: string) { return this.registry.lookup(RBAC_GROUP, "v1", plural)!; }

  /** Resolves once every RBAC object stored has been indexed. */
  async start() {
    const follow = (plural: string, upsert: (o: Obj) => void, remove: (o: Obj) => void, reset: () => void) =>
      new Informer(this.store(plural), { upsert, remove, reset });
    this.informers = [
      follow("roles", (o) => this.roles.set(id(o), o.rules ?? []), (o) => this.roles.delete(id(o)), () => this.roles.clear()),
      follow("clusterroles", (o) => {
        this.clusterRoles.set(o.metadata.name, o);
        this.clusterRolesChanged();
      }, (o) => {
        this.clusterRoles.delete(o.metadata.name);
        this.clusterRolesChanged();
      }, () => this.clusterRoles.clear()),
      follow("rolebindings", (o) => this.bindings.put(id(o), bindingOf(o), o.metadata.namespace), (o) => this.bindings.drop(id(o)), () => this.bindings.clear()),
      follow("clusterrolebindings", (o) => this.clusterBindings.put(id(o), bindingOf(o), ""), (o) => this.clusterBindings.drop(id(o)), () => this.clusterBindings.clear()),
    ];
    await Promise.all(this.informers.map((i) => i.start()));
  }

  private clusterRolesChanged() { for (const w of this.clusterRoleWatchers) w(); }

  stop() { for (const i of this.informers) i.close(); }

  clusterRole(name: string): Obj | undefined { return this.clusterRoles.get(name); }
  allClusterRoles(): Obj[] { return [...this.clusterRoles.values()]; }

  /**
   * The rules a binding's roleRef grants, or upstream's error when the role is missing: its authorizer
   * names the role in the singular, its RBAC storage (`registryWording`) by the plural resource.
   */
  roleRules(ref: RoleRef, bindingNs: string, registryWording = false): PolicyRule[] {
    const plural = registryWording ? "s" : "";
    if (ref.kind === "ClusterRole") {
      const r = this.clusterRoles.get(ref.name);
      if (!r) throw notFound(`clusterrole${plural}`, ref.name);
      return r.rules ?? [];
    }
    if (ref.kind === "Role") {
      const r = this.roles.get(`${bindingNs}/${ref.name}`);
      if (!r) throw notFound(`role${plural}`, ref.name);
      return r;
    }
    throw new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
  }

  /** The bindings naming the user: cluster-wide first, then those of namespace ns. */
  bindingsFor(u: UserInfo, ns: string): readonly Binding[] {
    const keys = keysOf(u);
    const cluster = this.clusterBindings.find("", keys);
    if (!ns) return cluster;
    const local = this.bindings.find(ns, keys);
    return !local.length ? cluster : !cluster.length ? local : [...cluster, ...local];
  }
}
