// POST to a kind that is computed, not stored (the review APIs): the body is checked like any create,
// the server answers it with the status filled in (201), and nothing is written.
import { ANONYMOUS, type UserInfo } from "../../auth/user.ts";
import type { Obj } from "../../registry/types.ts";
import { decodeObject, readBody } from "../negotiate.ts";
import { type HandlerContext, respond } from "./context.ts";

/** Answers one review: `namespace` is the request's (LocalSubjectAccessReview), `user` the caller. */
export type Review = (obj: Obj, caller: { user: UserInfo; namespace: string }) => Obj | Promise<Obj>;

/** Reviews by `group/resource`. */
export type Reviews = Map<string, Review>;

export async function review(ctx: HandlerContext, answer: Review): Promise<Response> {
  const body = decodeObject(await readBody(ctx.req), ctx.req.headers.get("content-type"), undefined, ctx.rs.def.kind);
  const obj = ctx.rs.checkBody(body, ctx.info.namespace);
  // a version served through the conversion table is answered at its hub
  const c = ctx.rs.def.conversion;
  const answered = await answer(c ? c.toHub(obj) : obj, { user: ctx.user ?? ANONYMOUS, namespace: ctx.info.namespace });
  return respond(ctx, c ? c.fromHub(answered) : answered, 201);
}
