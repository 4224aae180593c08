// The queue lives in infra/ so integrations may enqueue without depending on jobs/; existing
// importers of this path keep working.
export * from '../infra/queue';
