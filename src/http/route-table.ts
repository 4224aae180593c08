import type { RouteDef, RouteModule } from './define-routes';

export interface MountedRoute {
  mod: RouteModule;
  route: RouteDef;
  /** Express path relative to its router (the API root or the server root). */
  path: string;
}

const segments = (p: string) => p.split('/').filter(Boolean);
const isParam = (s: string) => s.startsWith(':');

/** Literal segments sort before parameters, position by position; then longer paths first. */
function compareSpecificity(a: string, b: string): number {
  const sa = segments(a);
  const sb = segments(b);
  for (let i = 0; i < Math.min(sa.length, sb.length); i += 1) {
    const pa = isParam(sa[i]);
    const pb = isParam(sb[i]);
    if (pa !== pb) return pa ? 1 : -1;
  }
  return sb.length - sa.length;
}

function fullPath(mod: RouteModule, r: RouteDef): string {
  return (mod.prefix + (r.path === '/' ? '' : r.path)) || '/';
}

/**
 * Every route of `modules` in the order to mount them: a literal segment always wins over a
 * parameter at the same position (`/fundraisers/cities` before `/fundraisers/:id`), whatever
 * the order of the module list, so no route depends on load order.
 */
export function orderRoutes(modules: RouteModule[]): MountedRoute[] {
  const all = modules.flatMap((mod) => mod.routes.map((route) => ({ mod, route, path: fullPath(mod, route) })));
  return all.sort((a, b) => compareSpecificity(a.path, b.path));
}

/**
 * Refuses a route table that is ambiguous: two routes with the same method and shape (they
 * would match the same URLs, so only load order would decide), or one parameter position
 * named differently by two routes (`/fundraisers/:id` beside `/fundraisers/:fundraiserId/comments`),
 * which the OpenAPI description would show as two different paths.
 */
export function assertUnambiguous(routes: MountedRoute[]): void {
  const problems: string[] = [];
  const shapes = new Map<string, string>();
  const paramNames = new Map<string, { name: string; path: string }>();
  for (const { route, path } of routes) {
    const segs = segments(path);
    const shape = `${route.method.toUpperCase()} /${segs.map((s) => (isParam(s) ? ':' : s)).join('/')}`;
    const seen = shapes.get(shape);
    if (seen) problems.push(`${route.method.toUpperCase()} ${path} and ${seen} match the same URLs`);
    else shapes.set(shape, path);
    segs.forEach((s, i) => {
      if (!isParam(s)) return;
      const position = `/${segs.slice(0, i).map((x) => (isParam(x) ? ':' : x)).join('/')}/:`;
      const other = paramNames.get(position);
      if (other && other.name !== s) problems.push(`${path} names the parameter at ${position} "${s.slice(1)}", ${other.path} names it "${other.name.slice(1)}"`);
      else if (!other) paramNames.set(position, { name: s, path });
    });
  }
  if (problems.length) throw new Error(`Ambiguous routes:\n  ${[...new Set(problems)].join('\n  ')}`);
}
