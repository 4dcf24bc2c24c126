// The resource arguments kubectl takes: `TYPE`, `TYPE NAME...`, `TYPE1,TYPE2 [NAME...]`, `TYPE/NAME...`
// and categories such as `all`, resolved through discovery into (type, name?) requests in argument order.
import type { ApiResource, DiscoveryClient } from "../client/discovery.ts";
import { CliError } from "../client/errors.ts";

export interface Request {
  res: ApiResource;
  /** The type as the user typed it (for re-resolving after a discovery refresh). */
  arg: string;
  /** One object by name; undefined means the whole collection. */
  name?: string;
}

export interface Plan {
  requests: Request[];
  /** Exactly one object was named (kubectl then prints that object, not a List). */
  singleItemImplied: boolean;
  /** More than one type was asked for (names then print as `kind/name`). */
  multipleTypes: boolean;
  /** True when names were given at all. */
  named: boolean;
}

export async function planRequests(discovery: DiscoveryClient, args: string[]): Promise<Plan> {
  const slashed = args.filter((a) => a.includes("/"));
  if (slashed.length && slashed.length !== args.length) {
    throw new CliError("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kite get resource/<resource_name>' instead of 'kite get resource resource/<resource_name>'");
  }
  if (slashed.length) {
    const requests: Request[] = [];
    for (const a of args) {
      const i = a.indexOf("/");
      const type = a.slice(0, i), name = a.slice(i + 1);
      if (!type || !name) throw new CliError(`arguments in resource/name form must have a single resource and name`);
      requests.push({ res: await discovery.resolve(type), arg: type, name });
    }
    const types = new Set(requests.map((r) => `${r.res.group}/${r.res.resource}`));
    return { requests, singleItemImplied: requests.length === 1, multipleTypes: types.size > 1, named: true };
  }
  const typeArgs = args[0].split(",").filter(Boolean);
  const names = args.slice(1);
  const requests: Request[] = [];
  let category = false;
  for (const t of typeArgs) {
    const members = await discovery.category(t);
    if (members) category = true;
    for (const res of members ?? [await discovery.resolve(t)]) {
      if (names.length) for (const name of names) requests.push({ res, arg: t, name });
      else requests.push({ res, arg: t });
    }
  }
  return {
    requests,
    singleItemImplied: typeArgs.length === 1 && names.length === 1 && !category,
    multipleTypes: typeArgs.length > 1 || category,
    named: names.length > 0,
  };
}
