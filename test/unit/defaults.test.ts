// Pure parts of pkg/defaults: image tags as upstream's image-name parser reads them, and what a Service
// type change drops (and keeps, when the writer changed it too).
import { describe, expect, test } from "bun:test";
import { imageTag } from "../../pkg/defaults/image.ts";
import { dropTypeDependentFields } from "../../pkg/defaults/service.ts";

describe("imageTag", () => {
  const digest = `sha256:${"0123456789abcdef".repeat(4)}`;
  test.each([
    ["nginx", "latest"], ["nginx:1.21", "1.21"], ["library/nginx:stable-alpine", "stable-alpine"],
    ["localhost:5000/app", "latest"], ["localhost:5000/app:v1", "v1"], ["registry.example.com/team/app:latest", "latest"],
    [`nginx@${digest}`, ""], [`nginx:1.21@${digest}`, "1.21"],
    // not a reference: upstream ignores the parse error and gets no tag
    ["", ""], ["Nginx:1.21", ""], ["nginx:", ""], ["nginx@sha256:short", ""],
  ])("%p has tag %p", (image, tag) => {
    expect(imageTag(image)).toBe(tag);
  });
});

describe("dropTypeDependentFields", () => {
  const nodePort = (ports: number[], extra: Record<string, unknown> = {}): any => ({
    spec: { type: "NodePort", externalTrafficPolicy: "Cluster", ports: ports.map((n, i) => ({ port: 80 + i, nodePort: n })), ...extra },
  });

  test("NodePort to ClusterIP drops the node ports and the traffic policy the server filled in", () => {
    const svc = nodePort([30001, 30002]);
    svc.spec.type = "ClusterIP";
    dropTypeDependentFields(svc, nodePort([30001, 30002]));
    expect(svc.spec).toEqual({ type: "ClusterIP", ports: [{ port: 80 }, { port: 81 }] });
  });

  test("a node port or policy the writer changed in the same update is kept, for validation to judge", () => {
    const svc = nodePort([30001, 30009], { externalTrafficPolicy: "Local" });
    svc.spec.type = "ClusterIP";
    dropTypeDependentFields(svc, nodePort([30001, 30002]));
    expect(svc.spec.ports.map((p: any) => p.nodePort)).toEqual([30001, 30009]);
    expect(svc.spec.externalTrafficPolicy).toBe("Local");
  });

  test("to ExternalName drops the cluster IPs and address families; the same type drops nothing", () => {
    const old = { spec: { type: "ClusterIP", clusterIP: "10.96.0.9", clusterIPs: ["10.96.0.9"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" } };
    const ext = structuredClone(old) as any;
    ext.spec.type = "ExternalName";
    dropTypeDependentFields(ext, old);
    expect(ext.spec).toEqual({ type: "ExternalName" });
    const same = structuredClone(old);
    dropTypeDependentFields(same, old);
    expect(same).toEqual(old);
  });
});
