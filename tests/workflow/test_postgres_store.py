"""PostgreSQL specifics: migrations, row-level security per tenant, SKIP LOCKED claims,
NOTIFY wake-ups, advisory-lock singletons and one transaction per transition."""

import threading
import uuid

import psycopg
import pytest

from workflow.model import new_run
from workflow.postgres_schema import postgres_migration_files
from workflow.postgres_store import PostgresStore
from workflow.store import Commit, ConcurrentTransitionError, QueuedSignal

from .conftest import postgres_store

TENANT_TABLES = {"definitions", "runs", "step_runs", "run_parts", "outbox", "queue",
                 "dead_letters", "tasks", "audit", "idempotency_keys", "layout_cache"}


@pytest.fixture
def pg(pg_server):
    yield from postgres_store(pg_server)


def start_commit(run_id, tenant, at=1.0):
    run = new_run(run_id, "w", "1", "h", {}, at=at, tenant=tenant)
    return Commit(run, enqueue=(QueuedSignal(f"{run_id}:start", run_id, "event",
                                             {"type": "Start", "at": at}, at),))


def app_connection(pg_server, schema):
    connection = psycopg.connect(pg_server.url, autocommit=True)
    connection.execute(f"SET search_path TO {schema}")
    return connection


def test_migrations_are_applied_once_and_recorded(pg, pg_server):
    assert pg.migrate() == []  # already applied when the store opened
    with app_connection(pg_server, pg.schema) as db:
        names = [row[0] for row in db.execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [name for name, _ in postgres_migration_files()]
    assert names == ["0001_initial", "0002_run_items", "0003_hot_updates"]


def test_a_claim_updates_its_rows_in_place_without_new_index_entries(pg, pg_server):
    # 300 rows fill several pages; with no room on a full page each claim's new row
    # version went to another page with an entry in every queue index (not HOT)
    rows = tuple(QueuedSignal(f"s{i:03}", f"r{i}", "event", {"type": "Start", "at": 0.0}, 0.0)
                 for i in range(300))
    pg.commit(Commit(None, enqueue=rows), at=0.0)
    with app_connection(pg_server, pg.schema) as db, db.transaction():
        db.execute("SELECT set_config('workflow.tenant', '*', true)")
        db.execute("UPDATE queue SET attempts = attempts + 1, lease_owner = 'w', "
                   "lease_until = 60.0")  # what a claim changes
        updated, in_place = db.execute("SELECT n_tup_upd, n_tup_hot_upd FROM "
                                       "pg_stat_xact_user_tables WHERE relname = 'queue' "
                                       "AND schemaname = %s", (pg.schema,)).fetchone()
    assert (updated, in_place) == (300, 300)


def test_several_stores_opening_a_new_schema_at_once_migrate_it_once(pg_server):
    schema = f"race_{uuid.uuid4().hex[:8]}"
    errors, stores = [], []

    def open_store():
        try:
            stores.append(PostgresStore(pg_server.url, schema=schema, max_connections=1))
        except Exception as error:  # pragma: no cover - the failure the test looks for
            errors.append(error)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in stores:
        store.close()
    assert errors == [] and len(stores) == 4
    with app_connection(pg_server, schema) as db:
        (applied,) = db.execute("SELECT count(*) FROM schema_migrations").fetchone()
        assert applied == len(postgres_migration_files())
        db.execute(f"DROP SCHEMA {schema} CASCADE")


def test_every_tenant_table_forces_row_level_security(pg, pg_server):
    with app_connection(pg_server, pg.schema) as db:
        rows = db.execute("SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity "
                          "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                          "WHERE n.nspname = %s AND c.relkind = 'r' AND EXISTS (SELECT 1 FROM "
                          "pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant')",
                          (pg.schema,)).fetchall()
    assert {name for name, _, _ in rows} == TENANT_TABLES
    assert all(enabled and forced for _, enabled, forced in rows)


def test_a_query_without_the_tenant_set_returns_nothing(pg, pg_server):
    pg.commit(start_commit("ra", "acme"), at=1.0)
    pg.commit(start_commit("rb", "globex"), at=1.0)
    assert {r.run_id for r in pg.list_runs()} == {"ra", "rb"}  # the engine's scope sees both
    with app_connection(pg_server, pg.schema) as db:  # the table owner, no tenant set
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM queue").fetchone() == (0,)
        with db.transaction():
            db.execute("SELECT set_config('workflow.tenant', 'acme', true)")
            assert db.execute("SELECT run_id FROM runs").fetchall() == [("ra",)]
            assert db.execute("SELECT signal_id FROM queue").fetchall() == [("ra:start",)]
        # SET LOCAL ended with its transaction: the next query sees nothing again
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (0,)


def test_a_tenant_cannot_write_rows_of_another_tenant(pg, pg_server):
    with app_connection(pg_server, pg.schema) as db, pytest.raises(
            psycopg.errors.InsufficientPrivilege, match="row-level security"), db.transaction():
        db.execute("SELECT set_config('workflow.tenant', 'acme', true)")
        db.execute("INSERT INTO audit (tenant, actor, action, target, at) "
                   "VALUES ('globex', 'mallory', 'x', 'y', 0)")


def test_tenant_reads_see_only_their_tenant(pg):
    pg.commit(start_commit("ra", "acme"), at=1.0)
    pg.commit(start_commit("rb", "globex", at=2.0), at=2.0)
    from workflow.store import RunFilter

    assert [r.run_id for r in pg.find_runs("acme", RunFilter(), limit=10).items] == ["ra"]
    assert pg.find_runs("initech", RunFilter(), limit=10).items == ()
    assert pg.events_after("initech", 0, 10) == ()


def test_a_refused_commit_leaves_no_queue_outbox_or_audit_row(pg):
    from workflow.model import EmitEvent
    from workflow.store import AuditEntry

    first = start_commit("r1", "acme")
    pg.commit(first, at=1.0)
    again = Commit(first.run, events=(EmitEvent("run.created"),),
                   enqueue=(QueuedSignal("r1:extra", "r1", "event", {"type": "Start", "at": 1.0},
                                         1.0),),
                   audit=AuditEntry("me", "acme", "run.start", "r1", None, 0, 1.0))
    with pytest.raises(ConcurrentTransitionError, match="already exists"):
        pg.commit(again, at=1.0)
    assert [s.signal_id for s in pg.pending()] == ["r1:start"]
    assert pg.outbox() == () and pg.audit_entries("acme", 0, 10) == ()


def test_concurrent_claims_take_every_row_exactly_once(pg):
    signals = tuple(QueuedSignal(f"s{i:03}", f"r{i}", "event", {"type": "Start", "at": 0.0}, 0.0)
                    for i in range(60))
    pg.commit(Commit(None, enqueue=signals), at=0.0)
    claimed: list[str] = []
    lock = threading.Lock()

    def worker(name):
        while (signal := pg.claim(name, now=1.0, lease_seconds=60.0)) is not None:
            with lock:
                claimed.append(signal.signal_id)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == [s.signal_id for s in signals]  # none twice, none missed


def test_a_claim_skips_a_row_another_transaction_holds(pg, pg_server):
    pg.commit(Commit(None, enqueue=(
        QueuedSignal("held", "r1", "event", {"type": "Start", "at": 0.0}, 0.0),
        QueuedSignal("free", "r2", "event", {"type": "Start", "at": 0.0}, 0.5))), at=0.0)
    with app_connection(pg_server, pg.schema) as db, db.transaction():
        db.execute("SELECT set_config('workflow.tenant', '*', true)")
        db.execute("SELECT 1 FROM queue WHERE signal_id = 'held' FOR UPDATE")
        signal = pg.claim("w", now=1.0, lease_seconds=5.0)  # does not wait for the lock
        assert signal is not None and signal.signal_id == "free"


def test_a_new_due_signal_wakes_a_listener(pg):
    woken, stop = threading.Event(), threading.Event()
    thread = pg.listen(woken.set, stop, timeout=0.2)
    assert woken.wait(5.0)  # the first wake: rows may have come while not listening
    woken.clear()
    pg.commit(Commit(None, enqueue=(
        QueuedSignal("later", "r", "event", {"type": "Start", "at": 0.0}, 9e9),)), at=1.0)
    assert not woken.wait(0.5)  # a row due in the future wakes nobody
    pg.commit(Commit(None, enqueue=(
        QueuedSignal("now", "r", "event", {"type": "Start", "at": 0.0}, 1.0),)), at=1.0)
    assert woken.wait(5.0)
    stop.set()
    thread.join(5.0)
    assert not thread.is_alive()


def test_a_singleton_job_runs_in_one_holder_at_a_time(pg, pg_server):
    other = PostgresStore(pg_server.url, schema=pg.schema, max_connections=1)
    try:
        with pg.singleton("reconcile") as held:
            assert held
            with other.singleton("reconcile") as also:
                assert not also
            with other.singleton("retention") as different:
                assert different
        with other.singleton("reconcile") as after:
            assert after
    finally:
        other.close()


def test_an_unreachable_server_is_a_clear_error():
    with pytest.raises(OSError, match="cannot open workflow store postgresql://"):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=1")


def test_a_periodic_singleton_job_never_runs_in_two_workers_at_once(pg, pg_server):
    import time

    from workflow import jobs

    other = PostgresStore(pg_server.url, schema=pg.schema, max_connections=2)
    running, most, passes, lock = [0], [0], [0], threading.Lock()

    def run_pass():
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.1)
        with lock:
            running[0] -= 1
            passes[0] += 1

    stop = threading.Event()
    threads = [jobs.every(store, "retention", 0.01, run_pass, stop) for store in (pg, other)]
    deadline = time.monotonic() + 10
    while passes[0] < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    for thread in threads:
        thread.join(5.0)
    other.close()
    assert passes[0] >= 6 and most[0] == 1
