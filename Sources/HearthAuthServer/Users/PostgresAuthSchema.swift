/// The tables and the function Authentication keeps its state in, in PostgreSQL
/// (``PostgresAuthStore``).
///
/// - `hearth_auth_head`: one row, the version every change of accounts, action codes and the
///   directory's settings raises by one.
/// - `hearth_auth_users`, `hearth_auth_codes`: one row per account and action code, as JSON
///   text, with the version that last wrote it. A removed one keeps its row with no record, so
///   that other nodes learn of the removal by its version.
/// - `hearth_auth_settings`: settings by name (hash configuration, signing keys, project and
///   provider configurations), with the version that last wrote the directory's own.
/// - `hearth_auth_sessions`, `hearth_auth_service_accounts`, `hearth_auth_database_secrets`: as
///   in the data directory's store, read anew by every request that needs them.
///
/// `hearth_auth_commit` applies one change in the transaction of its call, if the head is still
/// at the version the change was based on: it locks the head row first, so changes from every
/// node are applied one at a time, each seeing the last.
enum PostgresAuthSchema {
    static let statements: [String] = [
        "CREATE TABLE IF NOT EXISTS hearth_auth_head (id int PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)",
        "INSERT INTO hearth_auth_head (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
        "CREATE TABLE IF NOT EXISTS hearth_auth_users (local_id text PRIMARY KEY, record text, version bigint NOT NULL)",
        "CREATE INDEX IF NOT EXISTS hearth_auth_users_by_version ON hearth_auth_users (version)",
        "CREATE TABLE IF NOT EXISTS hearth_auth_codes (code text PRIMARY KEY, record text, version bigint NOT NULL)",
        "CREATE INDEX IF NOT EXISTS hearth_auth_codes_by_version ON hearth_auth_codes (version)",
        """
        CREATE TABLE IF NOT EXISTS hearth_auth_settings (name text PRIMARY KEY, value text NOT NULL,
          version bigint NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_auth_sessions (token_hash text PRIMARY KEY, local_id text NOT NULL,
          record text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS hearth_auth_sessions_by_user ON hearth_auth_sessions (local_id)",
        """
        CREATE TABLE IF NOT EXISTS hearth_auth_service_accounts (key_id text PRIMARY KEY, client_email text NOT NULL,
          public_key_pem text NOT NULL, created_at bigint NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_auth_database_secrets (id text PRIMARY KEY, secret_hash text NOT NULL UNIQUE,
          created_at bigint NOT NULL)
        """,
        """
        CREATE OR REPLACE FUNCTION hearth_auth_commit(p_base bigint, p_operations text[], p_keys text[], p_values text[])
        RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE
          v bigint;
          i int;
        BEGIN
          SELECT version INTO v FROM hearth_auth_head WHERE id = 1 FOR UPDATE;
          IF v <> p_base THEN
            RETURN NULL;
          END IF;
          v := v + 1;
          FOR i IN 1 .. coalesce(array_length(p_operations, 1), 0) LOOP
            CASE p_operations[i]
            WHEN 'put_user' THEN
              INSERT INTO hearth_auth_users (local_id, record, version) VALUES (p_keys[i], p_values[i], v)
                ON CONFLICT (local_id) DO UPDATE SET record = EXCLUDED.record, version = v;
            WHEN 'delete_user' THEN
              UPDATE hearth_auth_users SET record = NULL, version = v WHERE local_id = p_keys[i];
            WHEN 'clear_users' THEN
              UPDATE hearth_auth_users SET record = NULL, version = v WHERE record IS NOT NULL;
            WHEN 'put_code' THEN
              INSERT INTO hearth_auth_codes (code, record, version) VALUES (p_keys[i], p_values[i], v)
                ON CONFLICT (code) DO UPDATE SET record = EXCLUDED.record, version = v;
            WHEN 'delete_code' THEN
              UPDATE hearth_auth_codes SET record = NULL, version = v WHERE code = p_keys[i];
            WHEN 'put_setting' THEN
              INSERT INTO hearth_auth_settings (name, value, version) VALUES (p_keys[i], p_values[i], v)
                ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, version = v;
            END CASE;
          END LOOP;
          UPDATE hearth_auth_head SET version = v WHERE id = 1;
          RETURN v;
        END
        $$
        """,
    ]
}
