-- Typed views: flags as BOOLEAN, JSON arrays as lists, the main JSON values as columns.
-- An empty cell means unknown and becomes NULL.
CREATE VIEW events_typed AS
SELECT * REPLACE (
        registration_required = 'True' AS registration_required,
        CAST(CAST(NULLIF(target_audience, '') AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(split_part(date_time, '/', 1) AS DATE) AS start_date,
    CAST(CASE WHEN contains(date_time, '/') THEN split_part(date_time, '/', 2) ELSE date_time END AS DATE) AS end_date,
    json_extract_string(NULLIF(location, ''), '$.venue') AS venue,
    json_extract_string(NULLIF(location, ''), '$.address') AS address,
    CAST(json_extract(NULLIF(cost, ''), '$.is_free') AS BOOLEAN) AS is_free
FROM events;

CREATE VIEW stores_typed AS
SELECT * REPLACE (
        Biz_Entertainment_Available = 'TRUE' AS Biz_Entertainment_Available,
        pets_allowed = 'TRUE' AS pets_allowed,
        CAST(CAST(NULLIF(target_audience, '') AS JSON) AS VARCHAR[]) AS target_audience
    ),
    CAST(json_extract(NULLIF(parking, ''), '$.available') AS BOOLEAN) AS parking_available,
    CAST(json_extract(NULLIF(parking, ''), '$.capacity') AS INTEGER) AS parking_capacity,
    CAST(json_extract(NULLIF(private_room, ''), '$.available') AS BOOLEAN) AS private_room_available,
    CAST(json_extract(NULLIF(private_room, ''), '$.capacity') AS INTEGER) AS private_room_capacity,
    CAST(json_extract(NULLIF(kids_info, ''), '$.kids_menu') AS BOOLEAN) AS kids_menu,
    CAST(json_extract(NULLIF(kids_info, ''), '$.highchair') AS BOOLEAN) AS highchair,
    CAST(json_extract(NULLIF(kids_info, ''), '$.diaper_changing') AS BOOLEAN) AS diaper_changing
FROM stores;

-- price_yen: the first yen amount in the description ("1,000円", "税込500円", "¥1,200").
CREATE VIEW products_typed AS
SELECT *,
    TRY_CAST(NULLIF(regexp_replace(
        regexp_extract(product_description, '[¥￥][0-9][0-9,]*|[0-9][0-9,]*\s*円', 0),
        '[^0-9]', '', 'g'), '') AS INTEGER) AS price_yen
FROM products;
