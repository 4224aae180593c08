import type { Locale } from '../../integrations/mail';

/**
 * Every notification type, as keys. Empty here: each module that sends a type adds it in its
 * module file, beside its labels, so the type, its labels and its sender live in one folder:
 *
 *   declare module '../notifications/notification-types' {
 *     interface NotificationTypeRegistry { comment_received: true }
 *   }
 *
 * The augmentation names this file, not the module's index.ts: TypeScript merges an interface
 * only in the file that declares it, never through a re-export.
 */
export interface NotificationTypeRegistry {}

/** A notification type some module sends (`notify` takes nothing else). */
export type NotificationType = keyof NotificationTypeRegistry;

/** How a module describes a type it sends (`notificationTypes` in its defineModule). */
export type NotificationTypeSpec =
  | {
      /**
       * Where its email toggle stands among the others (ascending) in GET/PATCH
       * /users/{id}/preferences and its OpenAPI schema; unique across modules.
       */
      order: number;
      /** How a mail's footer names it ("... because emails about <label> are on"), per locale. */
      labels: Record<Locale, string>;
    }
  /**
   * No toggle of its own: its mail follows the "all" switch (sent while any toggle is on), with
   * the generic footer and an unsubscribe-from-all link.
   */
  | { emailToggle: false };

/** The notification types of every module, as preferences uses them (built by src/modules/index.ts). */
export interface NotificationCatalog {
  /** The types with an email toggle, in list order. */
  readonly toggled: readonly NotificationType[];
  /** Whether `v` names a type with an email toggle (the rest follow "all"). */
  hasToggle(v: unknown): v is NotificationType;
  /** The footer label of a type with a toggle. */
  label(locale: Locale, type: NotificationType): string;
}

/**
 * The catalog of every module's specs: toggled types by `order`. Throws on a type declared twice
 * or two toggles at one position, so a clash stops the process at start.
 */
export function notificationCatalog(specsByModule: Array<Partial<Record<NotificationType, NotificationTypeSpec>>>): NotificationCatalog {
  const specs = new Map<NotificationType, NotificationTypeSpec>();
  for (const declared of specsByModule) {
    for (const [type, spec] of Object.entries(declared) as Array<[NotificationType, NotificationTypeSpec]>) {
      if (specs.has(type)) throw new Error(`notification type ${type} is declared by two modules`);
      specs.set(type, spec);
    }
  }
  const labelled = [...specs].flatMap(([type, spec]) => ('labels' in spec ? [{ type, ...spec }] : []));
  const orders = new Set(labelled.map((t) => t.order));
  if (orders.size !== labelled.length) throw new Error('two notification types share one `order`');
  const toggled = labelled.sort((a, b) => a.order - b.order).map((t) => t.type);
  const labels = new Map(labelled.map((t) => [t.type, t.labels]));
  return {
    toggled,
    hasToggle: (v): v is NotificationType => typeof v === 'string' && labels.has(v as NotificationType),
    label: (locale, type) => labels.get(type)?.[locale] ?? '',
  };
}
