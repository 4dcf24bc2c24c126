// What the scheduler serves, and to whom: the secure port with delegated authentication and authorization
// (upstream's DelegatingAuthenticationOptions / DelegatingAuthorizationOptions), the insecure port without.

export interface HostPort { host: string; port: number }

export interface DelegatedAuthentication {
  /** --authentication-kubeconfig: TokenReviews go there; absent, bearer tokens are not read (anonymous). */
  kubeconfig?: string;
  /** --authentication-skip-lookup */
  skipLookup: boolean;
  /** --authentication-tolerate-lookup-failure */
  tolerateLookupFailure: boolean;
  /** --authentication-token-webhook-cache-ttl */
  cacheTtlMs: number;
  /** --client-ca-file */
  clientCAFile?: string;
  /** --requestheader-*: the front proxy (its CA file may also come from the cluster's lookup). */
  requestHeader: {
    clientCAFile?: string;
    allowedNames: string[];
    usernameHeaders: string[];
    groupHeaders: string[];
    extraHeaderPrefixes: string[];
  };
}

export interface DelegatedAuthorization {
  /** --authorization-kubeconfig: SubjectAccessReviews go there; absent, what is not always allowed is 403. */
  kubeconfig?: string;
  /** --authorization-always-allow-paths */
  alwaysAllowPaths: string[];
  /** --authorization-webhook-cache-authorized-ttl / -unauthorized-ttl */
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export interface ServingOptions {
  /** --bind-address:--secure-port; absent with --secure-port 0. */
  secure?: HostPort & {
    /** --cert-dir: the generated kube-scheduler.crt/.key live there; absent, generated in memory. */
    certDir?: string;
    tlsCertFile?: string;
    tlsPrivateKeyFile?: string;
  };
  /** The deprecated insecure port: health at healthzBindAddress, /metrics at metricsBindAddress (one listener when equal). */
  insecure: { healthz?: HostPort; metrics?: HostPort };
  authentication: DelegatedAuthentication;
  authorization: DelegatedAuthorization;
}
