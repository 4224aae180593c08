import type { Knex } from 'knex';
import type { AppContext } from '../context';
import type { EventType, Subscriber } from '../events';
import type { RouteModule } from '../http/define-routes';
import type { Limiter } from '../http/rate-limits';
import type { PaymentKind } from '../integrations/payments';
import type { LedgerCheck } from './ledger';
import type { NotificationCatalog, NotificationType, NotificationTypeSpec } from './notifications';
import type { WebhookHandlerMap } from './webhooks';

// Types only: every module file imports this file, so a runtime import here would make every
// module folder depend on the imported one (test/unit/import-cycles.test.ts checks folders).

/** What src/modules/index.ts gathers from every module, for the modules that serve it. */
export interface Collected {
  /** Every module's payment webhook handlers, merged (the Stripe webhook route dispatches on them). */
  webhookHandlers: WebhookHandlerMap;
  /** Every module's notification types (preferences' toggles, unsubscribe links, mail footers). */
  notificationTypes: NotificationCatalog;
  /** Every module's part in privacy exports and erasures, in module-list order. */
  personalData: ReadonlyArray<{ module: string; part: PersonalDataPart }>;
}

/**
 * Everything a module adds to the app, declared once in `src/modules/<name>/<name>.module.ts`
 * and collected by src/modules/index.ts. Only `name` is required.
 */
export interface ModuleDefinition<T extends NotificationType = NotificationType> {
  /** The module's folder under src/modules/. */
  name: string;
  /**
   * Its route tables, mounted and documented in the order of the module list. A function when a
   * table is built over what the collector gathers from every module (see Collected).
   */
  routes?: readonly RouteModule[] | ((collected: Collected) => readonly RouteModule[]);
  /**
   * The events it emits (`emit(trx, type, ...)` anywhere in its folder). test/unit/event-catalogue.test.ts
   * finds every call site, so a new emit fails there until it is declared here; the event catalogue
   * (docs/architecture/events.md) is generated from these lists.
   */
  publishes?: readonly EventType[];
  /** Its event subscribers (`on(...)` in `<name>.events.ts`). */
  subscribers?: readonly Subscriber[];
  /** Registers its job queues on the worker (`ctx.jobs.register(...)`). */
  jobs?: (ctx: AppContext, collected: Collected) => void;
  /**
   * Its payment webhook handlers. `ref`: the kind of payment the module owns (events whose
   * `ref.kind` is that go to it; events without a ref go to each such module in turn); null for
   * event kinds no other module handles (connected accounts, payouts).
   */
  webhookHandlers?: { ref: PaymentKind | null; handlers: WebhookHandlerMap };
  /** Its integrity checks over the money figures (`npm run admin -- check-ledger`), by name. */
  checks?: Readonly<Record<string, LedgerCheck>>;
  /** Its own limiters (rate-limits.ts defineLimiter); limiters several modules use stay in rate-limits.ts. */
  limiters?: readonly Limiter[];
  /**
   * The notification types it sends, each also added to NotificationTypeRegistry by a
   * `declare module '../notifications/notification-types'` in the same file.
   */
  notificationTypes?: { readonly [K in T]?: NotificationTypeSpec };
  /** Its part in data exports and erasures (see PersonalDataPart). */
  personalData?: PersonalDataPart;
}

/** The account an erasure is for, as it was before: parts scrub copies of these strings. */
export interface ErasedAccount {
  userId: string;
  email: string;
  name: string | null;
  slug: string | null;
}

/** Why an erasure cannot go ahead yet, and what the account holder can do about it. */
export interface ErasureBlock {
  code: string;
  message: string;
}

/**
 * Where a part keeps what a person is known by (`identifiers`: names, addresses, slugs) and what
 * they wrote (`texts`): `table`'s rows whose `by` column is the account's id, or, for a guest,
 * rows with `by` null whose `guestEmail` column holds the guest's address. The privacy module
 * reads them before an erasure and afterwards removes every copy of them held anywhere else
 * (src/modules/privacy/privacy.scrub.ts). These columns themselves stay the part's to erase:
 * other people's rows there are their own words, never touched by that sweep.
 */
export interface AuthoredSource {
  table: string;
  by: string;
  guestEmail?: string;
  identifiers?: readonly string[];
  texts?: readonly string[];
}

/**
 * A module's part in privacy requests (docs/decisions/0009-erasure-pseudonymises-money.md; the privacy module runs them). Each
 * module exports and erases its own tables, so table ownership holds. `columns` names every
 * `table.column` this part covers that refers to a user (a foreign key to users, or an email);
 * test/api/privacy-schema.test.ts fails for a column no part covers and no reasoned list excuses.
 */
export interface PersonalDataPart {
  columns: readonly string[];
  /** Where the person's identifiers and words are kept (see AuthoredSource). */
  authored?: readonly AuthoredSource[];
  /** The account's rows, as JSON-ready values, under the part's own keys. */
  export?: (db: Knex, userId: string) => Promise<Record<string, unknown>>;
  /**
   * Erases or pseudonymises the account's rows inside the erasure's transaction. Returns storage
   * keys to remove after commit (no network call while the transaction is open).
   */
  erase?: (trx: Knex.Transaction, account: ErasedAccount) => Promise<void | { storageKeys: string[] }>;
  /** Money or responsibilities that keep the account from being erased now. */
  blockers?: (ctx: AppContext, userId: string) => Promise<ErasureBlock[]>;
  /** A guest's rows held under an address (guest gifts and tips). */
  exportGuest?: (db: Knex, email: string) => Promise<Record<string, unknown>>;
  /** Pseudonymises a guest's rows under an address; how many rows changed. */
  eraseGuest?: (trx: Knex.Transaction, email: string) => Promise<number>;
}

/** A module as the collector holds it. */
export type AppModule = ModuleDefinition<NotificationType>;

/**
 * Declares a module. Typed so that `notificationTypes` names only registered types, and so the
 * collector can check at compile time that every registered type is declared by some module.
 */
export function defineModule<T extends NotificationType = never>(def: ModuleDefinition<T>): ModuleDefinition<T> {
  return def;
}

/** The notification types a module (or a union of modules) declares. */
export type DeclaredNotificationTypes<M> = M extends ModuleDefinition<infer T> ? T : never;
