// Assembles an API server: store → registry → controllers → HTTP, and runs its lifecycle
// (ready, SIGTERM: readyz fails, shutdown delay, drain, exit).
import { consola } from "consola";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Discovery } from "../api/discovery.ts";
import { CustomResources } from "../crd/controller.ts";
import { Health } from "../api/health.ts";
import { ApiHandler, type Route } from "../api/server.ts";
import { type AuthOptions, buildAuthFilters, clientCAFiles } from "../auth/config.ts";
import { publishAuthentication } from "../auth/trustconfigmap.ts";
import { Rbac } from "../auth/rbac/service.ts";
import { authReviews } from "../auth/reviews/index.ts";
import { ServiceAccountIssuer, registryGetter } from "../auth/serviceaccount.ts";
import { issuerDiscoveryRoute } from "../auth/serviceaccount-discovery.ts";
import { LegacyTokensController } from "../auth/serviceaccount-legacy.ts";
import { createTokenRequest } from "../auth/serviceaccount-tokenrequest.ts";
import { runControllers } from "../controllers/manager.ts";
import { DEFAULT_CONTROLLER_OPTIONS } from "../controllers/options.ts";
import { Client } from "../client/client.ts";
import { Transport } from "../client/transport.ts";
import type { SignerSource } from "../pki/csr-signer.ts";
import { type CsrSigningOptions, clusterSigner } from "./csr-signing.ts";
import { ensureServingCerts } from "../pki/certs.ts";
import { readServingPair } from "../pki/check.ts";
import { SERVED } from "../registry/served.ts";
import type { ResourceDef } from "../registry/types.ts";
import { type Enabled, parseRuntimeConfig } from "./runtime-config.ts";
import { DEFAULT_SERVICE_RANGES, type ServiceRanges } from "../registry/allocators.ts";
import { type CacheSizing, Registry } from "../registry/registry.ts";
import { type StorageOptions, openStores } from "../storage/factory.ts";
import { EtcdStore } from "../storage/etcd.ts";
import { SqliteStore } from "../storage/sqlite.ts";
import { Metrics } from "../metrics/metrics.ts";
import { DataDirLock, ensureDataDir } from "./datadir-lock.ts";
import { Bootstrap } from "./bootstrap/index.ts";
import { identity } from "./bootstrap/leader.ts";
import { componentStatuses } from "./componentstatus.ts";
import { ResourceMetrics } from "./resourcemetrics/objects.ts";
import { DescriptorPressure } from "./descriptors.ts";
import { step } from "./startup-errors.ts";
import { FrontPeers, listen } from "./http-listeners.ts";
import type { PeerListeners } from "../serving/peerlisteners.ts";
import type { TlsFront } from "../serving/tlsfront.ts";
import type { Features } from "../features/featuregate.ts";
import { existsSync, readFileSync, statSync } from "node:fs";
import { DEFAULT_KUBELET_CLIENT, type KubeletClient } from "../api/handlers/podlog.ts";
import type { Store } from "../storage/store.ts";
import { Encryption } from "../storage/encryption/index.ts";
import { type AuditOptions, buildAuditor } from "../audit/options.ts";
import { buildAdmission } from "../admission/index.ts";
import { defaultAdmissionOptions } from "../admission/options.ts";
import { type Limiter, MaxInflight } from "../api/limiter.ts";
import { PriorityAndFairness } from "../flowcontrol/apf.ts";
import { EventExpiry } from "./eventttl.ts";
import type { AdmissionOptions } from "../admission/types.ts";
import { DEFAULT_SERVING, type ServingOptions } from "./serving-options.ts";
import { ResponseHeaders } from "../api/response-headers.ts";
import { profilingRoute } from "./profiling.ts";
import { setAllowPrivileged } from "../validation/cluster-capabilities.ts";

export interface ApiServerOptions {
  securePort: number;
  bindAddress: string;
  dataDir: string;
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --tls-min-version as a protocol number (0x303: TLS 1.2). */
  tlsMinVersion?: number;
  advertiseAddress?: string;
  requestTimeoutMs: number;
  minRequestTimeoutSeconds: number;
  shutdownDelayMs: number;
  livezGraceMs: number;
  etcdPrefix: string;
  /** --service-cluster-ip-range and --service-node-port-range. */
  serviceRanges?: ServiceRanges;
  compactionIntervalMs: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** --enable-priority-and-fairness (with the APIPriorityAndFairness gate): APF instead of the plain in-flight limits. */
  priorityAndFairness?: boolean;
  /** --event-ttl: Events are removed this long after their last write (0: kept). */
  eventTtlMs?: number;
  /** --delete-collection-workers. */
  deleteCollectionWorkers?: number;
  /** --goaway-chance: the probability a response closes its connection, so clients spread over servers. */
  goawayChance?: number;
  watchCache: CacheSizing;
  storage: Omit<StorageOptions, "dataDir" | "requestTimeoutMs">;
  etcdHealthcheckTimeoutMs: number;
  /** --etcd-count-metric-poll-period and --etcd-db-metric-poll-interval; 0 disables. */
  countPollMs: number;
  dbPollMs: number;
  features: Features;
  /** --runtime-config: the types served (default: every served version but alpha ones). */
  runtimeConfig?: Enabled;
  /** --storage-media-type: application/json or a binary (protobuf) media type. */
  storageMediaType: string;
  /** Authentication and authorization (the flags of the spec's §5.1). */
  auth: AuthOptions;
  /** The CA that signs approved CSRs (--cluster-signing-*); default: the generated CA. */
  csrSigning?: CsrSigningOptions;
  /**
   * The namespace controller and garbage collector that run inside this process (default: on). Off when a
   * controller-manager runs them as API clients (`kite up` once it runs one); upstream's server has neither.
   */
  namespaceAndGCControllers?: boolean;
  /** How pods/log reaches node agents (--kubelet-*); default: no client certificate, agents not verified. */
  kubelet?: { certFile?: string; keyFile?: string; caFile?: string; timeoutMs: number; preferredAddressTypes: string[] };
  /** --encryption-provider-config: encryption at rest of the resources it names. */
  encryptionProviderConfig?: string;
  /** --audit-policy-file and the backends' flags; absent, nothing is audited. */
  audit?: AuditOptions;
  /** The admission plugins and their settings (--enable-admission-plugins, ...); default: upstream's default set. */
  admission?: AdmissionOptions;
  /** CORS, HSTS, profiling, ciphers, SNI, --allow-privileged, the `kubernetes` Service's options (serving-options.ts). */
  serving?: ServingOptions;
}

/**
 * Once serving, an exception no request caught (a timer's, a stream's) is logged and the server goes on:
 * one bad callback must not take every client's server down. Installed once per process.
 */
let guarded = false;
function keepServingOnEscapedErrors() {
  if (guarded) return;
  guarded = true;
  process.on("uncaughtException", (e) => consola.error("uncaught exception (server keeps serving):", e));
  process.on("unhandledRejection", (e) => consola.error("unhandled rejection (server keeps serving):", e));
}

// OpenAPI documents are large: load and build them on the first request, not at start-up.
const openapi = (gzip: boolean, served: () => ResourceDef[]): Route => async (req, url) =>
  url.pathname.startsWith("/openapi/") ? (await import("../openapi/http.ts")).handleOpenAPI(url, req.headers, { gzip }, served()) : undefined;

export class ApiServer {
  store!: Store;
  private extraStores: Store[] = [];
  registry!: Registry;
  private http?: ReturnType<typeof Bun.serve>;
  /** Terminates TLS in front of `http` when client certificates are read (see tlsfront.ts). */
  private front?: TlsFront;
  /** The HTTP servers behind the front, one per peer. */
  private behind?: PeerListeners;
  private handler!: ApiHandler;
  private readonly descriptors = new DescriptorPressure();
  private controllers: { stop(): void | Promise<void> }[] = [];
  private compactTimer?: Timer;
  private pollTimers: Timer[] = [];
  readonly metrics = new Metrics();
  private shuttingDown = false;
  /** The embedded store's data dir is held by one server at a time (etcd's servers share their store by design). */
  private lock?: DataDirLock;
  caPem = "";
  /** The bearer token of this server's own loopback client. */
  private readonly loopbackToken = randomBytes(32).toString("base64url");

  private health?: Health;

  constructor(readonly opts: ApiServerOptions) {}

  /** Resolves once /readyz passes (start-up hooks such as the RBAC bootstrap policy are done). */
  async untilReady(): Promise<void> {
    const readyz = new URL("https://localhost/readyz");
    while ((await this.health?.handle(readyz))?.status !== 200) await Bun.sleep(20);
  }

  /** Where clients reach this server: --advertise-address, else a specific --bind-address, else loopback. */
  get advertiseAddress(): string {
    const bind = this.opts.bindAddress;
    return this.opts.advertiseAddress || (bind && bind !== "0.0.0.0" && bind !== "::" ? bind : "127.0.0.1");
  }

  /** The secure port clients reach. */
  get port() { return this.front?.port ?? this.http?.port ?? this.opts.securePort; }

  get url() { return `https://${this.opts.bindAddress.includes(":") ? `[${this.opts.bindAddress}]` : this.opts.bindAddress === "0.0.0.0" ? "127.0.0.1" : this.opts.bindAddress}:${this.port}`; }

  /** Start-up failures are StartupErrors (one line each, see startup-errors.ts). */
  async start(): Promise<void> {
    const o = this.opts;
    await step(`data dir ${o.dataDir}`, () => {
      ensureDataDir(o.dataDir);
      if (o.storage.backend === "sqlite") this.lock = DataDirLock.acquire(o.dataDir);
    });
    const file = o.encryptionProviderConfig;
    const encryption = file ? await step("encryption provider config", async () => {
      const e = new Encryption(file, o.etcdPrefix, SERVED.map((d) => ({ group: d.group, plural: d.plural, segment: d.storageResource ?? d.plural })), this.metrics.registry);
      this.controllers.push({ stop: () => e.close() });
      await e.check();
      return e;
    }) : undefined;
    const etcd = o.storage.backend === "etcd3";
    await step(etcd ? "etcd" : `store ${join(o.dataDir, "state.db")}`, async () => {
      const stores = openStores({ ...o.storage, dataDir: o.dataDir, requestTimeoutMs: o.requestTimeoutMs });
      this.store = stores.main;
      this.extraStores = [...stores.overrides.values()];
      // the registry reads and writes through encryption; health, metrics and compaction use the stores as they are
      const wrap = (st: Store) => encryption?.wrap(st) ?? st;
      this.registry = new Registry(SERVED, wrap(this.store), {
        etcdPrefix: o.etcdPrefix, serviceRanges: o.serviceRanges, caching: o.watchCache, binary: o.storageMediaType !== "application/json",
        overrides: new Map([...stores.overrides].map(([k, st]) => [k, wrap(st)])),
        deleteCollectionWorkers: o.deleteCollectionWorkers,
      });
      await this.registry.bootstrap();
    });
    this.registry.lookup("", "v1", "componentstatuses")!.computed = componentStatuses(() => [this.store, ...this.extraStores], o.etcdHealthcheckTimeoutMs);

    const health = (this.health = new Health(o.livezGraceMs));
    health.add({ name: "ping", in: ["livez", "readyz", "healthz"], run: async () => null });
    health.add({ name: "log", in: ["livez", "readyz", "healthz"], run: async () => null });
    health.add({
      name: "etcd", in: ["livez", "readyz", "healthz"],
      run: async () => {
        const all = [this.store, ...this.extraStores];
        await Promise.all(all.map((st) => (st instanceof EtcdStore ? st.healthy(o.etcdHealthcheckTimeoutMs) : st.currentRevision())));
        return null;
      },
    });
    let controllersStarted = false;
    health.add({ name: "poststarthook/start-kite-controllers", in: ["livez", "readyz", "healthz"], startup: true, run: async () => (controllersStarted ? null : "not finished") });
    health.add({ name: "shutdown", in: ["readyz"], run: async () => (this.shuttingDown ? "process is shutting down" : null) });

    const rbac = new Rbac(this.registry);
    this.controllers.push(rbac);
    await step("rbac", () => rbac.start());
    health.add({ name: "poststarthook/rbac/bootstrap-roles", in: ["livez", "readyz", "healthz"], startup: true, run: async () => (rbac.bootstrapped ? null : "not finished") });
    const sa = o.auth.serviceAccounts;
    const serviceAccounts = sa && (await step("service account keys", () => new ServiceAccountIssuer(sa, registryGetter(this.registry))));
    const auth = await step("authentication and authorization", () => buildAuthFilters(o.auth, { registry: this.registry, serviceAccounts, rbac, loopbackToken: this.loopbackToken }));
    rbac.guardWrites(auth.authz);
    const admission = await step("admission", () => buildAdmission(o.admission ?? defaultAdmissionOptions(), this.registry, auth.authz, this.metrics.admission));
    this.registry.useAdmission(admission);
    const caFiles = clientCAFiles(o.auth);
    const k = o.kubelet;
    const kubelet = k && (await step("kubelet client files", () => ({
      cert: k.certFile && readFileSync(k.certFile, "utf8"), key: k.keyFile && readFileSync(k.keyFile, "utf8"), ca: k.caFile && readFileSync(k.caFile, "utf8"),
      timeoutMs: k.timeoutMs, preferredAddressTypes: k.preferredAddressTypes,
    })));
    this.serveResourceMetrics(kubelet || DEFAULT_KUBELET_CLIENT);
    const peers = new FrontPeers();
    const serving = o.serving ?? DEFAULT_SERVING;
    setAllowPrivileged(serving.allowPrivileged);
    const externalAddress = () => `${serving.externalHostname ?? (o.advertiseAddress || "127.0.0.1")}:${this.port}`;
    const enabled = o.runtimeConfig ?? parseRuntimeConfig("", SERVED);
    const discovery = new Discovery(SERVED.filter(enabled), externalAddress);
    const customResources = new CustomResources(this.registry, discovery);
    this.controllers.push(customResources);
    await step("custom resources", () => customResources.start());
    const issuerDiscovery = serviceAccounts && issuerDiscoveryRoute({ issuer: serviceAccounts.issuer, jwksURI: sa.jwksURI, keys: serviceAccounts.keys, externalAddress });
    const auditOptions = o.audit;
    const audit = auditOptions && (await step("audit", () => buildAuditor(auditOptions, this.metrics.registry, (info) => !!this.registry.lookup(info.group, info.version, info.resource)?.def.deprecated)));
    if (audit) this.controllers.push({ stop: () => audit.close() });
    const limiter = await step("request limits", () => this.limiter());
    const goaway = o.goawayChance ?? 0;
    this.handler = new ApiHandler(this.registry, discovery, health, {
      requestTimeoutMs: o.requestTimeoutMs,
      minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
      limiter,
      features: o.features,
      closeConnections: () => this.descriptors.high() || (goaway > 0 && Math.random() < goaway),
      auth,
      reviews: authReviews(o.auth, auth, rbac),
      tokenRequest: serviceAccounts && ((ctx) => createTokenRequest(ctx, serviceAccounts, this.registry)),
      clientCertificates: caFiles.length ? peers.certificates : undefined,
      sourceAddress: caFiles.length ? peers.address : undefined,
      upgradeCheck: peers.isUpgradeCheck,
      kubelet,
      audit,
      enabled,
      responseHeaders: serving.hsts || serving.corsAllowedOrigins.length ? new ResponseHeaders(serving) : undefined,
    }, [
      openapi(o.features.APIResponseCompression, () => discovery.served), (_req, url) => this.metrics.handle(url),
      ...(issuerDiscovery ? [issuerDiscovery] : []), ...(serving.profiling ? [profilingRoute] : []),
    ], this.metrics);

    const tls = await this.tls();
    const signer = await step("cluster signing CA", () => clusterSigner(o.csrSigning, o.certDir ?? join(o.dataDir, "pki")));
    const listeners = await listen({ bindAddress: o.bindAddress, securePort: o.securePort, tls, serving, caFiles, kubelet: kubelet || DEFAULT_KUBELET_CLIENT }, this.handler, peers);
    ({ http: this.http, front: this.front, behind: this.behind } = listeners);
    this.lock?.record(this.port);
    void rbac.bootstrap();

    const ca = this.caPem || (o.tlsCertFile ? readFileSync(o.tlsCertFile, "utf8") : "");
    const bootstrap = new Bootstrap(this.registry, {
      clusterIPRange: (o.serviceRanges ?? DEFAULT_SERVICE_RANGES).clusterIPRange,
      advertiseAddress: this.advertiseAddress,
      port: this.port,
      ca,
      identity: identity(o.dataDir),
      flowControl: limiter instanceof PriorityAndFairness,
      nodePort: serving.kubernetesServiceNodePort,
      endpointReconciler: serving.endpointReconciler,
      apiserverCount: serving.apiserverCount,
    });
    this.controllers.push(bootstrap);
    await bootstrap.start();
    if (serviceAccounts) {
      const tokens = new LegacyTokensController(this.registry, serviceAccounts, ca);
      await tokens.start();
      this.controllers.push(tokens);
    }
    const inServer = o.namespaceAndGCControllers !== false ? ["namespace", ...(serving.enableGarbageCollector ? ["garbagecollector"] : [])] : [];
    this.runLoopbackControllers([...inServer, ...(signer ? ["csrapproving", "csrsigning"] : [])], signer);
    controllersStarted = true;
    await publishAuthentication(this.registry, o.auth).catch((e) => consola.warn(`kube-system/extension-apiserver-authentication: ${e.message}`));

    if (o.eventTtlMs) {
      const expiry = new EventExpiry(this.registry, o.eventTtlMs);
      await expiry.start();
      this.controllers.push(expiry);
    }
    this.startPolls();
    keepServingOnEscapedErrors();
    if (o.compactionIntervalMs > 0) {
      // Each tick compacts to the revision seen one interval ago, so at least one interval of history stays.
      let seen = await this.store.currentRevision();
      this.compactTimer = setInterval(async () => {
        const now = await this.store.currentRevision();
        await this.store.compact(seen).catch((e) => consola.warn(`compaction: ${e.message}`));
        seen = now;
      }, o.compactionIntervalMs);
    }
  }

  /**
   * The controllers this server runs itself (namespace deletion and garbage collection, unless kite up runs
   * them with the others; CSR approving and signing where the signing CA is), as clients of its own API under the
   * loopback identity (system:apiserver), as every controller is a client: none reaches into the registry.
   */
  private runLoopbackControllers(names: string[], signer: SignerSource | undefined) {
    if (!names.length) return;
    // TLS unverified: the server's own port on its own address, which this process holds
    // Behind the TLS front, straight to a listener of its own behind it (no TLS, no piping).
    const unix = this.behind?.acquire({ address: "127.0.0.1" });
    const client = new Client(new Transport({ server: unix ? "http://localhost" : this.url, unix, insecure: true, token: this.loopbackToken, namespace: "default", explicitNamespace: false, source: "the API server's loopback client", cacheDir: "" }));
    const abort = new AbortController();
    const done = runControllers(client, names, 5, abort.signal, { ...DEFAULT_CONTROLLER_OPTIONS, signer })
      .catch((e) => consola.error(`in-server controllers: ${(e as Error).message}`));
    this.controllers.push({ stop: async () => { abort.abort(); await done; } });
  }

  /**
   * Priority and fairness over the server's whole concurrency (both in-flight flags) when on, each
   * request waiting at most a quarter of --request-timeout in its queue, as upstream; else the two limits.
   */
  private async limiter(): Promise<Limiter> {
    const o = this.opts;
    if (!(o.priorityAndFairness ?? true) || !o.features.APIPriorityAndFairness) {
      return new MaxInflight({ readonly: o.maxRequestsInflight, mutating: o.maxMutatingRequestsInflight });
    }
    const apf = new PriorityAndFairness(this.registry, o.maxRequestsInflight + o.maxMutatingRequestsInflight, o.requestTimeoutMs / 4, this.metrics.flowcontrol);
    await apf.start();
    this.controllers.push(apf);
    return apf;
  }

  /** Object counts per resource and the database size, for /metrics. */
  private startPolls() {
    const o = this.opts;
    if (o.countPollMs > 0) {
      this.pollTimers.push(setInterval(async () => {
        for (const rs of this.registry.all) {
          if (rs.def.codec || rs.def.asyncCodec || rs.def.computed) continue;
          const n = await rs.store.count(rs.prefix).catch(() => undefined);
          if (n !== undefined) this.metrics.storageObjects.set({ resource: rs.def.group ? `${rs.def.plural}.${rs.def.group}` : rs.def.plural }, n);
        }
      }, o.countPollMs));
    }
    if (o.dbPollMs > 0 && this.store instanceof SqliteStore) {
      const file = this.store.path;
      this.pollTimers.push(setInterval(() => {
        const size = [file, `${file}-wal`].reduce((t, f) => t + (existsSync(f) ? statSync(f).size : 0), 0);
        this.metrics.dbSize.set({ endpoint: file }, size);
      }, o.dbPollMs));
    }
  }

  /** metrics.k8s.io NodeMetrics and PodMetrics, computed from the node agents on each read. */
  private serveResourceMetrics(kubelet: KubeletClient) {
    const store = (r: string) => this.registry.lookup("", "v1", r)!;
    const metrics = new ResourceMetrics(store("nodes"), store("pods"), kubelet);
    this.registry.lookup("metrics.k8s.io", "v1beta1", "nodes")!.computed = () => metrics.nodeMetrics();
    this.registry.lookup("metrics.k8s.io", "v1beta1", "pods")!.computed = (ns) => metrics.podMetrics(ns);
  }

  private async tls() {
    const o = this.opts;
    let cert: string, key: string;
    if (o.tlsCertFile && o.tlsPrivateKeyFile) {
      ({ cert, key } = readServingPair(o.tlsCertFile, o.tlsPrivateKeyFile, { cert: "--tls-cert-file", key: "--tls-private-key-file" }));
    } else {
      const dir = o.certDir ?? join(o.dataDir, "pki");
      const c = await step(`cert dir ${dir}`, () => ensureServingCerts(dir, [o.advertiseAddress ?? ""]));
      ({ cert, key } = readServingPair(c.certFile, c.keyFile));
      this.caPem = c.ca;
    }
    const min = o.tlsMinVersion;
    const ciphers = o.serving?.ciphers;
    return { cert, key, ...(min ? { minVersion: min } : {}), ...(ciphers ? { ciphers } : {}) } as any;
  }

  /** SIGTERM: readyz fails at once, livez stays up for the shutdown delay, then requests drain. */
  async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    if (this.opts.shutdownDelayMs > 0) await Bun.sleep(this.opts.shutdownDelayMs);
    await this.stop();
  }

  async stop(): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.compactTimer);
    this.pollTimers.forEach(clearInterval);
    // (the bootstrap hands its lease back before the store closes)
    await Promise.all(this.controllers.map((c) => c.stop()));
    this.handler?.shutdown.abort();
    this.front?.stop();
    await Promise.all([this.http?.stop(false), this.behind?.stop()]);
    await this.front?.drain();
    await Promise.all([this.store, ...this.extraStores].map((st) => st?.close()));
    this.lock?.release();
  }
}
