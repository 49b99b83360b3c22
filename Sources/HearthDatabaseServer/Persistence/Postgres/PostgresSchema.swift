/// The tables and functions Hearth keeps its namespaces in, in PostgreSQL.
///
/// - `hearth_namespaces`: one row per namespace: which node owns it (`owner`, and where it
///   serves clients, `owner_address`), since which
///   ownership (`epoch`, raised by every claim), until when its lease runs (`lease_until`, renewed
///   by the owner; `NULL` when released), a sequence number its writes have reached
///   (`last_seq`, kept up now and then: a claim numbers on from the newest log row), and
///   whether it exists (`created`: a namespace only read is claimed, but not created), and
///   whether its owner holds its advisory lock (`locked`, ``OwnershipLocks``).
/// - `hearth_log`: each namespace's writes, one row each (``WriteLog``), kept for the history.
/// - `hearth_leaves`: each namespace's tree, one row per leaf and priority (``LeafRows``); paths
///   compare byte by byte (collation `C`), so a subtree is one range of the key.
/// - `hearth_settings`: each namespace's settings (its rules).
/// - `hearth_cluster_settings`: the cluster's own settings, such as the secret relays present
///   to owners (``RelayEndpoint``).
///
/// `hearth_claim` takes a namespace over when its lease has run out (or was released, or is the
/// caller's own, or the caller holds the lock its owner held, which proves that owner dead:
/// `p_locked` with `locked`), raising its epoch; `hearth_renew` extends the caller's lease, or releases it
/// (a lease of 0), and records whether the caller holds the lock. `hearth_commit` applies one batch in the transaction of its call: first the fencing (the
/// namespace must still be owned by the caller at the caller's epoch, else nothing is written),
/// then the operations of a ``CommitPlan``, in order.
enum PostgresSchema {
    /// The SQLSTATE of a commit refused by the fencing.
    static let fencedState = "HE001"

    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS hearth_cluster_settings (
          name text PRIMARY KEY,
          value text NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_namespaces (
          ns text PRIMARY KEY,
          owner text,
          owner_address text,
          epoch bigint NOT NULL DEFAULT 0,
          lease_until timestamptz,
          last_seq bigint NOT NULL DEFAULT 0,
          created boolean NOT NULL DEFAULT false,
          locked boolean NOT NULL DEFAULT false
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_log (
          ns text NOT NULL,
          seq bigint NOT NULL,
          time bigint NOT NULL,
          entry text NOT NULL,
          PRIMARY KEY (ns, seq)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_leaves (
          ns text NOT NULL,
          path text COLLATE "C" NOT NULL,
          value text NOT NULL,
          PRIMARY KEY (ns, path)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_settings (
          ns text NOT NULL,
          name text NOT NULL,
          value text NOT NULL,
          PRIMARY KEY (ns, name)
        )
        """,
        """
        CREATE OR REPLACE FUNCTION hearth_claim(
          p_ns text, p_owner text, p_address text, p_lease double precision, p_locked boolean
        )
        RETURNS TABLE (claimed boolean, epoch bigint, last_seq bigint, owner_address text, created boolean)
        LANGUAGE plpgsql AS $$
        BEGIN
          -- A claim lost in a crash of PostgreSQL is harmless: every commit checks the epoch, and
          -- the first synchronous commit after it makes it durable with itself.
          PERFORM set_config('synchronous_commit', 'off', true);
          RETURN QUERY
            INSERT INTO hearth_namespaces AS n (ns, owner, owner_address, epoch, lease_until, locked)
              VALUES (p_ns, p_owner, p_address, 1, clock_timestamp() + make_interval(secs => p_lease), p_locked)
            ON CONFLICT (ns) DO UPDATE
              SET owner = EXCLUDED.owner, owner_address = EXCLUDED.owner_address, epoch = n.epoch + 1,
                lease_until = EXCLUDED.lease_until, locked = p_locked
              WHERE (p_locked AND n.locked) OR n.owner IS NULL OR n.owner = EXCLUDED.owner OR n.lease_until IS NULL
                OR n.lease_until < clock_timestamp()
            RETURNING true, n.epoch,
              GREATEST(n.last_seq, COALESCE((SELECT max(l.seq) FROM hearth_log l WHERE l.ns = p_ns), 0)),
              n.owner_address, n.created;
          IF NOT FOUND THEN
            RETURN QUERY SELECT false, n.epoch, n.last_seq, n.owner_address, n.created
              FROM hearth_namespaces n WHERE n.ns = p_ns;
          END IF;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION hearth_renew(
          p_ns text, p_owner text, p_epoch bigint, p_lease double precision, p_locked boolean
        ) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
          -- As a claim: a renewal lost in a crash only shortens the lease.
          PERFORM set_config('synchronous_commit', 'off', true);
          UPDATE hearth_namespaces
            SET lease_until = CASE WHEN p_lease > 0 THEN clock_timestamp() + make_interval(secs => p_lease) END,
              locked = p_locked
            WHERE ns = p_ns AND owner = p_owner AND epoch = p_epoch;
          RETURN FOUND;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION hearth_commit(
          p_ns text, p_owner text, p_epoch bigint, p_lease double precision, p_last bigint,
          p_deleted_subtrees text[], p_deleted_rows text[], p_keys text[], p_values text[],
          p_sequences bigint[], p_times bigint[], p_entries text[], p_trim bigint
        ) RETURNS void LANGUAGE plpgsql
        -- Every statement here reads one key or one range of the primary key. A plan cached while
        -- the tables were small would scan them whole for as long as the session lasts.
        SET enable_seqscan = off
        AS $$
        DECLARE
          subtree text;  -- a row key: each deleted subtree's, then each deleted row's
        BEGIN
          -- A lock, not an update: a row updated at every commit would pile up dead versions
          -- faster than they are vacuumed, and every later commit would wade through them.
          PERFORM 1 FROM hearth_namespaces WHERE ns = p_ns AND owner = p_owner AND epoch = p_epoch
            FOR NO KEY UPDATE;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'namespace % is no longer owned by this node at epoch %', p_ns, p_epoch
              USING ERRCODE = '\(fencedState)';
          END IF;
          UPDATE hearth_namespaces SET created = true WHERE ns = p_ns AND NOT created;
          -- A key, or one range of the key, per statement: the plans cached for a set of keys at
          -- once read every row of the namespace and filter them.
          FOREACH subtree IN ARRAY p_deleted_subtrees LOOP
            DELETE FROM hearth_leaves WHERE ns = p_ns AND path = subtree;
            DELETE FROM hearth_leaves WHERE ns = p_ns AND path >= subtree || '/' AND path < subtree || '0';
          END LOOP;
          FOREACH subtree IN ARRAY p_deleted_rows LOOP
            DELETE FROM hearth_leaves WHERE ns = p_ns AND path = subtree;
          END LOOP;
          INSERT INTO hearth_leaves (ns, path, value)
            SELECT p_ns, k.key, k.value FROM unnest(p_keys, p_values) AS k(key, value)
            ON CONFLICT (ns, path) DO UPDATE SET value = EXCLUDED.value;
          INSERT INTO hearth_log (ns, seq, time, entry)
            SELECT p_ns, r.seq, r.time, r.entry FROM unnest(p_sequences, p_times, p_entries) AS r(seq, time, entry);
          -- The newest row stays, whatever the history keeps: a claim numbers on from it.
          IF LEAST(p_trim, p_last - 1) > 0 THEN
            INSERT INTO hearth_settings (ns, name, value)
              SELECT p_ns, 'history_begins', time::text FROM hearth_log
              WHERE ns = p_ns AND seq <= LEAST(p_trim, p_last - 1) ORDER BY seq DESC LIMIT 1
              ON CONFLICT (ns, name) DO UPDATE SET value = EXCLUDED.value;
            DELETE FROM hearth_log WHERE ns = p_ns AND seq <= LEAST(p_trim, p_last - 1);
          END IF;
          -- A commit that ran long must not hand the namespace over as it ends: the lease is
          -- extended when less than two thirds of it are left (renewals do it otherwise).
          UPDATE hearth_namespaces
            SET lease_until = clock_timestamp() + make_interval(secs => p_lease), last_seq = p_last
            WHERE ns = p_ns AND lease_until < clock_timestamp() + make_interval(secs => p_lease * 2 / 3);
        END
        $$
        """,
    ]
}
