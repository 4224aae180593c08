import { assertUnambiguous, orderRoutes } from '../../src/http/route-table';
import { defineRoutes, type RouteDef } from '../../src/http/define-routes';
import { modules } from '../../src/modules';

const r = (method: RouteDef['method'], path: string): RouteDef => ({ method, path, auth: 'none', handler: () => null });

describe('route table', () => {
  it('when a literal route is listed after a parameter route, then it is still mounted first', () => {
    const byId = defineRoutes('/fundraisers', [r('get', '/:id')]);
    const cities = defineRoutes('/fundraisers', [r('get', '/cities')]);
    expect(orderRoutes([byId, cities]).map((x) => x.path)).toEqual(['/fundraisers/cities', '/fundraisers/:id']);
  });

  it('when two routes match the same URLs, then the table is refused', () => {
    const a = defineRoutes('/things', [r('get', '/:id')]);
    const b = defineRoutes('/things', [r('get', '/:thingId')]);
    expect(() => assertUnambiguous(orderRoutes([a, b]))).toThrow(/match the same URLs/);
  });

  it('when one parameter position has two names, then the table is refused', () => {
    const a = defineRoutes('/fundraisers', [r('get', '/:id')]);
    const b = defineRoutes('/fundraisers', [r('post', '/:fundraiserId/comments')]);
    expect(() => assertUnambiguous(orderRoutes([a, b]))).toThrow(/names the parameter/);
  });

  it('when the service starts, then its own route tables are unambiguous', () => {
    expect(() => assertUnambiguous(orderRoutes(modules.filter((m) => !m.root)))).not.toThrow();
    expect(() => assertUnambiguous(orderRoutes(modules.filter((m) => m.root)))).not.toThrow();
  });
});
