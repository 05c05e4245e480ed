-- The seeds' queries name the data by file (FROM 'events.csv'). DuckDB binds such a name to a view of
-- that name before it would look for a file, so these views keep every seed query working while no
-- query ever reaches the file system.
CREATE VIEW "events.csv" AS SELECT * FROM events;
CREATE VIEW "input/events.csv" AS SELECT * FROM events;
CREATE VIEW "stores.csv" AS SELECT * FROM stores;
CREATE VIEW "filtered_store_data_カテゴリー情報あり.csv" AS SELECT * FROM stores;
CREATE VIEW "input/filtered_store_data_カテゴリー情報あり.csv" AS SELECT * FROM stores;
CREATE VIEW "filtered_product_data.csv" AS SELECT * FROM products;
CREATE VIEW "input/filtered_product_data.csv" AS SELECT * FROM products;
