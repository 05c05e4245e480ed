-- The typed relations: flags as BOOLEAN, JSON arrays as lists, the main JSON values as columns, opening
-- hours and closures as rows. Those that parse JSON and dates are stored, not computed on every query:
-- a build is written once and read-only afterwards, so what they derive from the tables cannot go
-- stale. Each is defined once, as a view in ctool_derive (which no query may name); its table in main
-- is created from that view with no rows (CREATE TABLE AS keeps the columns, types and collations), and
-- Fill (migrations/fill.go) copies the view into it after the load, in the order ctool_meta.derived
-- lists. An empty cell is NULL in the raw tables and means unknown, in the typed relations too: a flag
-- is true where its cell holds the flag's value and NULL where the cell is empty, never false for
-- "not said".
CREATE SCHEMA ctool_derive;

-- What Fill copies, in order: target relation, then the view that computes it.
CREATE TABLE ctool_meta.derived (
    position INTEGER PRIMARY KEY,
    target   VARCHAR NOT NULL,
    source   VARCHAR NOT NULL
);

-- store_id and store_name: the store the venue (location.venue) names, schema.Venues: Fill writes one
-- row per event, in the table's order, and the view joins them by position.
CREATE TABLE ctool_derive.event_stores (
    store_id   VARCHAR,
    store_name VARCHAR
);
CREATE VIEW ctool_derive.events_typed AS
SELECT e.* REPLACE (
        e.registration_required = 'True' AS registration_required,
        CAST(CAST(e.target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(split_part(e.date_time, '/', 1) AS DATE) AS start_date,
    CAST(CASE WHEN contains(e.date_time, '/') THEN split_part(e.date_time, '/', 2) ELSE e.date_time END AS DATE) AS end_date,
    json_extract_string(e.location, '$.venue') AS venue,
    json_extract_string(e.location, '$.address') AS address,
    CAST(json_extract(e.cost, '$.is_free') AS BOOLEAN) AS is_free,
    es.store_id,
    es.store_name
FROM main.events e POSITIONAL JOIN ctool_derive.event_stores es;
CREATE TABLE events_typed AS SELECT * FROM ctool_derive.events_typed WITH NO DATA;

-- Opening hours as rows, so "which cafes are open now?" is one SELECT (with is_open, 004). A close time
-- at or before the open time means the store closes after midnight. day compares without case, a
-- label: day = dayname(tokyo_now()) works as written.
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
CREATE TABLE store_hours AS SELECT * FROM ctool_derive.store_hours WITH NO DATA;

-- Irregular closures as rows: the store is closed all that day.
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
CREATE TABLE store_closures AS SELECT * FROM ctool_derive.store_closures WITH NO DATA;

-- hours_known tells "hours unknown" (the extraction found none: no store_hours rows) from "closed on a
-- day" (a known week without that day), so a NOT EXISTS over store_hours does not list unknown stores
-- as closed; it reads store_hours as stored, which Fill fills first. The offers (vegan_available and
-- the rest, schema.Topics) are schema.ReadOffer of the stores' text: Fill writes one row per store, in
-- the table's order, and the view joins them by position.
CREATE TABLE ctool_derive.store_offers (
    vegan_available        BOOLEAN,
    halal_available        BOOLEAN,
    gluten_free_available  BOOLEAN,
    wheelchair_accessible  BOOLEAN,
    nursing_room_available BOOLEAN
);
CREATE VIEW ctool_derive.stores_typed AS
SELECT s.* REPLACE (
        s.Biz_Entertainment_Available = 'TRUE' AS Biz_Entertainment_Available,
        s.pets_allowed = 'TRUE' AS pets_allowed,
        CAST(CAST(s.target_audience AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(json_extract(s.parking, '$.available') AS BOOLEAN) AS parking_available,
    CAST(json_extract(s.parking, '$.capacity') AS INTEGER) AS parking_capacity,
    CAST(json_extract(s.private_room, '$.available') AS BOOLEAN) AS private_room_available,
    CAST(json_extract(s.private_room, '$.capacity') AS INTEGER) AS private_room_capacity,
    CAST(json_extract(s.kids_info, '$.kids_menu') AS BOOLEAN) AS kids_menu,
    CAST(json_extract(s.kids_info, '$.highchair') AS BOOLEAN) AS highchair,
    CAST(json_extract(s.kids_info, '$.diaper_changing') AS BOOLEAN) AS diaper_changing,
    s.store_id IN (SELECT store_id FROM main.store_hours) AS hours_known,
    o.*
FROM main.stores s POSITIONAL JOIN ctool_derive.store_offers o;
CREATE TABLE stores_typed AS SELECT * FROM ctool_derive.stores_typed WITH NO DATA;

INSERT INTO ctool_meta.derived VALUES
    (1, 'main.events_typed', 'ctool_derive.events_typed'),
    (2, 'main.store_hours', 'ctool_derive.store_hours'),
    (3, 'main.store_closures', 'ctool_derive.store_closures'),
    (4, 'main.stores_typed', 'ctool_derive.stores_typed');

-- price_yen: the first yen amount in the description ("1,000円", "税込500円", "¥1,200"), schema.PriceYen,
-- stored at ingest: Fill writes one price per products row, in the table's order, and the view joins
-- them by position. Only the prices are stored: a second copy of every products row, the stored
-- relations' way, costs the ingest of a large products file more than its budget
-- (bench/results/typed-columns.md), and the join costs a query a few milliseconds at a million rows.
CREATE TABLE ctool_derive.product_prices (price_yen INTEGER);
CREATE VIEW products_typed AS
SELECT p.*, pr.price_yen
FROM main.products p POSITIONAL JOIN ctool_derive.product_prices pr;

