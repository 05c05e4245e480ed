-- The typed relations that parse JSON and dates are stored, not computed on every query: a build is
-- written once and read-only afterwards, so what they derive from the tables cannot go stale. Each
-- definition (as in 002, 003 and 006) moves to a view in ctool_derive, which no query may name; Fill
-- (migrations/fill.go) copies it into the stored relation after the load, in the order
-- ctool_meta.derived lists. CREATE TABLE AS keeps the columns, types and collations.
--
-- products_typed stays the view of 002: its price_yen is one regexp over every description, which at a
-- million products would add about a fifth to the ingest's wall time (bench/results/typed-columns.md).
CREATE SCHEMA ctool_derive;

CREATE VIEW ctool_derive.events_typed AS
SELECT * REPLACE (
        coalesce(registration_required = 'True', false) AS registration_required,
        CAST(CAST(target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(split_part(date_time, '/', 1) AS DATE) AS start_date,
    CAST(CASE WHEN contains(date_time, '/') THEN split_part(date_time, '/', 2) ELSE date_time END AS DATE) AS end_date,
    json_extract_string(location, '$.venue') AS venue,
    json_extract_string(location, '$.address') AS address,
    CAST(json_extract(cost, '$.is_free') AS BOOLEAN) AS is_free
FROM main.events;

CREATE VIEW ctool_derive.store_hours AS
WITH parsed AS (
    SELECT store_id, store_name, from_json(opening_hours, '{
        "monday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "tuesday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "wednesday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "thursday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "friday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "saturday": [{"open": "VARCHAR", "close": "VARCHAR"}],
        "sunday": [{"open": "VARCHAR", "close": "VARCHAR"}]}') AS h
    FROM main.stores
    WHERE opening_hours IS NOT NULL
), days AS (
    SELECT store_id, store_name, unnest([
        {'day': 'monday', 'n': 1, 'intervals': h.monday},
        {'day': 'tuesday', 'n': 2, 'intervals': h.tuesday},
        {'day': 'wednesday', 'n': 3, 'intervals': h.wednesday},
        {'day': 'thursday', 'n': 4, 'intervals': h.thursday},
        {'day': 'friday', 'n': 5, 'intervals': h.friday},
        {'day': 'saturday', 'n': 6, 'intervals': h.saturday},
        {'day': 'sunday', 'n': 7, 'intervals': h.sunday}]) AS d
    FROM parsed
), intervals AS (
    SELECT store_id, store_name, d.day AS day, d.n AS n, unnest(d.intervals) AS iv
    FROM days
)
SELECT store_id, store_name, day COLLATE NOCASE AS day,
    CAST(iv.open AS TIME) AS opens,
    CAST(iv.close AS TIME) AS closes,
    CAST(iv.close AS TIME) <= CAST(iv.open AS TIME) AS overnight
FROM intervals
ORDER BY store_id, n, opens;

CREATE VIEW ctool_derive.store_closures AS
WITH closures AS (
    SELECT store_id, store_name,
        unnest(from_json(irregular_closures, '[{"type": "VARCHAR", "date": "VARCHAR", "reason": "VARCHAR"}]')) AS c
    FROM main.stores
    WHERE irregular_closures IS NOT NULL
)
SELECT store_id, store_name, CAST(c.date AS DATE) AS date, c.type COLLATE NOCASE AS type, c.reason AS reason
FROM closures
ORDER BY store_id, date;

CREATE VIEW ctool_derive.stores_typed AS
SELECT * REPLACE (
        coalesce(Biz_Entertainment_Available = 'TRUE', false) AS Biz_Entertainment_Available,
        coalesce(pets_allowed = 'TRUE', false) AS pets_allowed,
        CAST(CAST(target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(json_extract(parking, '$.available') AS BOOLEAN) AS parking_available,
    CAST(json_extract(parking, '$.capacity') AS INTEGER) AS parking_capacity,
    CAST(json_extract(private_room, '$.available') AS BOOLEAN) AS private_room_available,
    CAST(json_extract(private_room, '$.capacity') AS INTEGER) AS private_room_capacity,
    CAST(json_extract(kids_info, '$.kids_menu') AS BOOLEAN) AS kids_menu,
    CAST(json_extract(kids_info, '$.highchair') AS BOOLEAN) AS highchair,
    CAST(json_extract(kids_info, '$.diaper_changing') AS BOOLEAN) AS diaper_changing,
    store_id IN (SELECT store_id FROM ctool_derive.store_hours) AS hours_known
FROM main.stores;

-- The old views go first: stores_typed reads store_hours, so it is dropped before it.
DROP VIEW stores_typed;
DROP VIEW store_hours;
DROP VIEW store_closures;
DROP VIEW events_typed;

CREATE TABLE events_typed AS SELECT * FROM ctool_derive.events_typed WITH NO DATA;
CREATE TABLE store_hours AS SELECT * FROM ctool_derive.store_hours WITH NO DATA;
CREATE TABLE store_closures AS SELECT * FROM ctool_derive.store_closures WITH NO DATA;
CREATE TABLE stores_typed AS SELECT * FROM ctool_derive.stores_typed WITH NO DATA;

-- What Fill copies, in order: target relation, then the view that computes it.
CREATE TABLE ctool_meta.derived (
    position INTEGER PRIMARY KEY,
    target   VARCHAR NOT NULL,
    source   VARCHAR NOT NULL
);
INSERT INTO ctool_meta.derived VALUES
    (1, 'main.events_typed', 'ctool_derive.events_typed'),
    (2, 'main.store_hours', 'ctool_derive.store_hours'),
    (3, 'main.store_closures', 'ctool_derive.store_closures'),
    (4, 'main.stores_typed', 'ctool_derive.stores_typed');
