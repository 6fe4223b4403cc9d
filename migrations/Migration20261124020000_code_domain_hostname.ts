import { Migration } from '@mikro-orm/migrations';

/**
 * The host name of a code's custom domain, copied onto the code when it is created: its short URL and encoded image
 * are `https://<domain_hostname>/<short_code>`. A domain's host name never changes and a domain cannot be deleted
 * while a code names it, so the copy cannot go stale; it lets every response show the URL without a join.
 */
export class Migration20261124020000_code_domain_hostname extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table qr_codes add column domain_hostname text;');
    this.addSql('update qr_codes q set domain_hostname = d.hostname from domains d where q.domain_id = d.id;');
    this.addSql('alter table qr_codes add constraint qr_codes_domain_hostname_ck check ((domain_id is null) = (domain_hostname is null));');
  }

  override async down(): Promise<void> {
    this.addSql('alter table qr_codes drop constraint if exists qr_codes_domain_hostname_ck;');
    this.addSql('alter table qr_codes drop column if exists domain_hostname;');
  }
}
