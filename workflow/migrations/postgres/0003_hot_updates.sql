-- Room on each page for a row's next version, so that updating a row that changes no
-- indexed column is a HOT update (the new version on the same page, no index entry
-- added). A queue row is updated at least once (its claim sets attempts and the lease)
-- before it is deleted: at the default fillfactor of 100 its page was full and each claim
-- wrote a new entry into all three queue indexes, about six WAL records per row (one with
-- room: one). A step run's row is updated each time its state moves. Existing pages keep
-- their fill until rewritten; new pages get the room at once.

ALTER TABLE queue SET (fillfactor = 50);
ALTER TABLE step_runs SET (fillfactor = 70);
