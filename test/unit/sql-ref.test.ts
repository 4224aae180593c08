import { sqlRef } from '../../src/db/sql-ref';
import { campaignJoinSql } from '../../src/modules/fundraisers';
import { publicUserJoinSql } from '../../src/modules/idp';

describe('published join fragments', () => {
  it('when a caller names plain columns, then the join reads as written', () => {
    expect(campaignJoinSql('f', 'd.fundraiser_id')).toBe('join fundraisers f on f.id = d.fundraiser_id');
    expect(publicUserJoinSql('u', 'f.owner_user_id', { left: true })).toBe('left join users u on u.id = f.owner_user_id');
  });

  it('when a name is anything but a plain identifier, then it is refused before it reaches SQL', () => {
    for (const bad of ['', 'u; drop table users', 'U.id', 'a.b.c', '"u"', 'u.id--']) expect(() => sqlRef(bad)).toThrow(/bad SQL reference/);
    expect(sqlRef('t24')).toBe('t24');
  });
});
