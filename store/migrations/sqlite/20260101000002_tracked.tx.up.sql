-- Tracked data. Every row carries the trainee's company_id beside its
-- trainee_id, and the composite foreign key to trainees (company_id, id)
-- keeps the pair honest, so every read is scoped to one company by its
-- key. Days are integers YYYYMMDD; each table's leading key or index is
-- (company_id, trainee_id, day), which serves the date-range reads.

-- One weight per trainee and day, in kilograms: ingesting a day again
-- replaces it ("a day holds one weight: the last one recorded for it").
CREATE TABLE weight_entries (
    company_id INTEGER NOT NULL,
    trainee_id INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    weight_kg  REAL NOT NULL CHECK (weight_kg > 0),
    PRIMARY KEY (company_id, trainee_id, day),
    CONSTRAINT weight_entries_trainee_fkey FOREIGN KEY (company_id, trainee_id) REFERENCES trainees (company_id, id)
) WITHOUT ROWID;

-- Measurements are appended; CUSTOM ones, and only they, have a name.
CREATE TABLE measurements (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL,
    trainee_id INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    type       TEXT NOT NULL CHECK (type IN ('CHEST', 'WAIST', 'HIPS', 'NECK', 'SHOULDERS', 'LEFT_ARM', 'RIGHT_ARM',
                   'LEFT_THIGH', 'RIGHT_THIGH', 'LEFT_CALF', 'RIGHT_CALF', 'BODY_FAT', 'WEIGHT', 'CUSTOM')),
    name       TEXT,
    value      REAL NOT NULL,
    unit       TEXT NOT NULL CHECK (unit IN ('CM', 'IN', 'PERCENT', 'KG', 'LB')),
    CONSTRAINT measurements_name_check CHECK ((type = 'CUSTOM') = (name IS NOT NULL)),
    CONSTRAINT measurements_trainee_fkey FOREIGN KEY (company_id, trainee_id) REFERENCES trainees (company_id, id)
);

CREATE INDEX measurements_trainee_day_idx ON measurements (company_id, trainee_id, day);

-- Nutrition items are appended; a day lists them by meal, then by id.
CREATE TABLE nutrition_items (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL,
    trainee_id INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    meal       TEXT NOT NULL CHECK (meal IN ('BREAKFAST', 'LUNCH', 'DINNER', 'SNACK')),
    name       TEXT NOT NULL,
    quantity   REAL NOT NULL CHECK (quantity >= 0),
    unit       TEXT NOT NULL,
    calories   REAL NOT NULL CHECK (calories >= 0),
    protein    REAL NOT NULL CHECK (protein >= 0),
    carbs      REAL NOT NULL CHECK (carbs >= 0),
    fat        REAL NOT NULL CHECK (fat >= 0),
    CONSTRAINT nutrition_items_trainee_fkey FOREIGN KEY (company_id, trainee_id) REFERENCES trainees (company_id, id)
);

CREATE INDEX nutrition_items_trainee_day_idx ON nutrition_items (company_id, trainee_id, day);

-- One step count per trainee and day; ingesting a day again replaces it.
CREATE TABLE daily_steps (
    company_id INTEGER NOT NULL,
    trainee_id INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    steps      INTEGER NOT NULL CHECK (steps >= 0),
    PRIMARY KEY (company_id, trainee_id, day),
    CONSTRAINT daily_steps_trainee_fkey FOREIGN KEY (company_id, trainee_id) REFERENCES trainees (company_id, id)
) WITHOUT ROWID;

-- The days a trainee trained; trainees.last_trained is the latest of them
-- (a workout moves it forward, never back).
CREATE TABLE workouts (
    company_id INTEGER NOT NULL,
    trainee_id INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    PRIMARY KEY (company_id, trainee_id, day),
    CONSTRAINT workouts_trainee_fkey FOREIGN KEY (company_id, trainee_id) REFERENCES trainees (company_id, id)
) WITHOUT ROWID;
