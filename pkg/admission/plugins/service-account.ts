// ServiceAccount: a new pod runs as a ServiceAccount that exists ("default" unless it names one), gets its
// image pull secrets, may mount only the secrets the account lists when the account enforces that, and
// gets the account's token as a projected volume (v1.21's BoundServiceAccountTokenVolume: a bound token,
// the cluster CA from kube-root-ca.crt and the namespace) in every container.
import { forbidden } from "../../api/status.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedGet } from "../lookup.ts";
import { type Attributes, type Plugin, type PluginContext, isKind, qualified } from "../types.ts";

const MIRROR = "kubernetes.io/config.mirror";
const ENFORCE_MOUNTABLE = "kubernetes.io/enforce-mountable-secrets";
export const TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

const tokenVolume = (name: string) => ({
  name,
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
    defaultMode: 420,
  },
});

/** The default account may not exist yet in a namespace made a moment ago: its controller is asked for a little while. */
async function lookUp(ctx: PluginContext, ns: string, name: string): Promise<Obj | undefined> {
  const accounts = ctx.registry.lookup("", "v1", "serviceaccounts")!;
  for (let i = 0; ; i++) {
    const sa = await cachedGet(accounts, ns, name);
    if (sa || name !== "default" || i >= 20) return sa;
    await Bun.sleep(50);
  }
}

function checkMountableSecrets(a: Attributes, pod: Obj, sa: Obj) {
  if (sa.metadata.annotations?.[ENFORCE_MOUNTABLE] !== "true") return;
  const allowed = new Set(((sa.secrets ?? []) as Obj[]).map((s) => s.name));
  for (const v of (pod.spec.volumes ?? []) as Obj[]) {
    const secret = v.secret?.secretName;
    if (secret && !allowed.has(secret)) {
      throw forbidden(qualified(a), a.name, `volume with secret.secretName="${secret}" is not allowed because service account ${sa.metadata.name} does not reference that secret`);
    }
  }
}

function mountToken(pod: Obj) {
  const spec = pod.spec;
  const names = new Set(((spec.volumes ?? []) as Obj[]).map((v) => v.name));
  let name: string;
  do name = `kube-api-access-${Array.from({ length: 5 }, () => NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]).join("")}`;
  while (names.has(name));
  let needed = false;
  for (const list of ["initContainers", "containers"]) {
    for (const c of (spec[list] ?? []) as Obj[]) {
      if (((c.volumeMounts ?? []) as Obj[]).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...(c.volumeMounts ?? []), { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      needed = true;
    }
  }
  if (needed) spec.volumes = [...(spec.volumes ?? []), tokenVolume(name)];
}

export function serviceAccount(ctx: PluginContext): Plugin {
  return {
    handles: (a) => isKind(a, "", "Pod") && a.operation === "CREATE" && !a.subresource,
    async admit(a) {
      const pod = a.object!;
      const spec = (pod.spec ??= {});
      if (pod.metadata.annotations?.[MIRROR] !== undefined) {
        if (spec.serviceAccountName) throw forbidden(qualified(a), a.name, "a mirror pod may not reference service accounts");
        return;
      }
      spec.serviceAccountName ||= "default";
      const sa = await lookUp(ctx, a.namespace, spec.serviceAccountName);
      if (!sa) {
        throw forbidden(qualified(a), a.name, `error looking up service account ${a.namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`);
      }
      checkMountableSecrets(a, pod, sa);
      if ((spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true) === true) mountToken(pod);
      if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = structuredClone(sa.imagePullSecrets);
    },
  };
}
