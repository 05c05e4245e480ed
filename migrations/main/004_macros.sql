-- The macros queries may call (schema.Macros): the time in Tokyo and whether a store is open then.

-- The local time in Tokyo (no daylight saving), as a TIMESTAMP to pass to is_open().
CREATE MACRO tokyo_now() AS CAST(timezone('Asia/Tokyo', now()) AS TIMESTAMP);

-- is_open(store_id, ts): is the store open at local Tokyo time ts? An interval that runs past midnight
-- belongs to the day it opened, and a closure date closes that day's intervals.
-- The arguments are first bound in a FROM-less subquery: a macro substitutes its arguments as written,
-- so a caller's `store_id` used directly inside a subquery over store_hours would bind to
-- store_hours.store_id instead of the caller's row.
CREATE MACRO is_open(sid, ts) AS EXISTS (
    SELECT 1
    FROM (SELECT sid AS arg_store_id, CAST(ts AS TIMESTAMP) AS arg_ts) a
    JOIN store_hours h ON h.store_id = a.arg_store_id
    WHERE (h.day = lower(dayname(CAST(a.arg_ts AS DATE)))
            AND CAST(a.arg_ts AS TIME) >= h.opens
            AND (h.overnight OR CAST(a.arg_ts AS TIME) < h.closes)
            AND NOT EXISTS (SELECT 1 FROM store_closures c
                            WHERE c.store_id = a.arg_store_id AND c.date = CAST(a.arg_ts AS DATE)))
       OR (h.overnight
            AND h.day = lower(dayname(CAST(a.arg_ts AS DATE) - 1))
            AND CAST(a.arg_ts AS TIME) < h.closes
            AND NOT EXISTS (SELECT 1 FROM store_closures c
                            WHERE c.store_id = a.arg_store_id AND c.date = CAST(a.arg_ts AS DATE) - 1))
);
