import type { Knex } from 'knex';

// Reference data: the campaign categories, with names in the four content locales.
const CATEGORIES: Array<[slug: string, en: string, ru: string, uk: string, es: string]> = [
  ['medical', 'Medical', 'Медицина', 'Медицина', 'Medicina'],
  ['emergency', 'Emergency', 'Чрезвычайные ситуации', 'Надзвичайні ситуації', 'Emergencias'],
  ['education', 'Education', 'Образование', 'Освіта', 'Educación'],
  ['animals', 'Animals', 'Животные', 'Тварини', 'Animales'],
  ['community', 'Community', 'Сообщество', 'Громада', 'Comunidad'],
  ['creative', 'Creative', 'Творчество', 'Творчість', 'Creatividad'],
  ['environment', 'Environment', 'Экология', 'Довкілля', 'Medio ambiente'],
  ['faith', 'Faith', 'Вера', 'Віра', 'Fe'],
  ['family', 'Family', 'Семья', 'Родина', 'Familia'],
  ['sports', 'Sports', 'Спорт', 'Спорт', 'Deportes'],
  ['memorial', 'Memorial', 'Память', "Пам'ять", 'Homenajes'],
  ['nonprofit', 'Nonprofit', 'Некоммерческие организации', 'Неприбуткові організації', 'Sin fines de lucro'],
];

export async function up(knex: Knex): Promise<void> {
  await knex('categories')
    .insert(CATEGORIES.map(([slug, en, ru, uk, es], i) => ({ slug, names: { en, ru, uk, es }, sort_order: (i + 1) * 10 })))
    .onConflict('slug')
    .merge(['names', 'sort_order']);
}

export async function down(knex: Knex): Promise<void> {
  await knex('categories').whereIn('slug', CATEGORIES.map((c) => c[0])).del();
}
