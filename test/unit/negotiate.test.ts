// Content negotiation: a kind without a binary form (a custom resource) gets 406 for a binary-only
// Accept, and the JSON fallback when the Accept lists it.
import { expect, test } from "bun:test";
import { negotiate } from "../../pkg/api/negotiate.ts";
import { StatusError } from "../../pkg/api/status.ts";

const noAs = () => false;

test("binary-only Accept for a kind without protobuf is 406 Not Acceptable", () => {
  try {
    negotiate("application/vnd.kubernetes.protobuf", noAs, false);
    throw new Error("no error");
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    expect((e as StatusError).code).toBe(406);
  }
});

test("binary with a JSON fallback serves JSON for such a kind, binary for a built-in one", () => {
  const accept = "application/vnd.kubernetes.protobuf, application/json";
  expect(negotiate(accept, noAs, false)).toEqual({ format: "json" });
  expect(negotiate(accept, noAs, true)).toEqual({ format: "protobuf", type: "application/vnd.kubernetes.protobuf" });
  expect(negotiate("application/vnd.platform.protobuf", noAs, true)).toEqual({ format: "protobuf", type: "application/vnd.platform.protobuf" });
});
