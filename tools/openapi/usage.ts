// A small typed use of the client that openapi-typescript generates from
// api/openapi.yaml with its default flags (generated/api.d.ts), with
// openapi-fetch. `.ci/run` compiles it under `tsc --strict`: when the
// document changes so that the smallest create, a search, a read or the
// error handling no longer type-check, CI fails.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";

type Trainee = components["schemas"]["Trainee"];
type ErrorBody = components["schemas"]["ErrorBody"];

const client = createClient<paths>({
  baseUrl: "http://127.0.0.1:8080",
  headers: { "X-API-Key": "pk_0123456789012345678901234567890123456789" },
});

// The smallest create the document describes: name, e-mail and password.
export async function createSmallest(): Promise<Trainee> {
  const { data, error, response } = await client.POST("/public-api/trainees", {
    body: { name: "Ada Park", email: "ada@example.com", password: "correct-horse-battery" },
  });
  if (data) {
    return data.trainee;
  }
  // 400 has a JSON body; 401, 404, 405, 413 and 500 have empty bodies, so
  // `error` is undefined for them: check the status.
  if (error) {
    const body: ErrorBody = error;
    throw new Error(`${response.status} ${body.errorCode} ${body.field ?? ""}: ${body.message}`);
  }
  throw new Error(`HTTP ${response.status}`);
}

export async function createFull(trainerId: number): Promise<Trainee | undefined> {
  const { data } = await client.POST("/public-api/trainees", {
    body: {
      name: "Ada Park",
      email: "ada@example.com",
      password: "correct-horse-battery",
      phoneNumber: "+44 7700 900123",
      dateOfBirth: "02-03-1990",
      expirationDate: null,
      trainerId,
      weightUnit: "LB",
    },
  });
  return data?.trainee;
}

export async function getOne(id: number): Promise<Trainee | undefined> {
  const { data, response } = await client.GET("/public-api/trainees/{id}", { params: { path: { id } } });
  if (!data && response.status === 500 && response.headers.get("X-Error-Reason") === "trainee-not-found") {
    return undefined; // not a trainee of this company: never retry
  }
  return data?.trainee;
}

export async function searchPage(q: string, page: number): Promise<{ names: string[]; totalPages: number }> {
  const { data } = await client.GET("/public-api/trainees/search", {
    params: { query: { q, status: "active", page, size: 50, sort: "name,desc" } },
  });
  return { names: data?.content.map((t) => t.name) ?? [], totalPages: data?.page.totalPages ?? 0 };
}

// Every list pages the same way: after (the last page's page.nextCursor)
// and limit in, page.nextCursor and page.hasMore out.
type CursorPage = components["schemas"]["CursorPage"];

async function walk<T>(read: (after: string | undefined) => Promise<{ rows: T[]; page: CursorPage } | undefined>): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (;;) {
    const got = await read(after);
    if (!got) return out;
    out.push(...got.rows);
    if (!got.page.hasMore || got.page.nextCursor === null) return out;
    after = got.page.nextCursor;
  }
}

export async function everyRunId(id: number): Promise<number[]> {
  return walk(async (after) => {
    const { data } = await client.GET("/public-api/automations/{id}/runs", { params: { path: { id }, query: { after, limit: 100 } } });
    return data && { rows: data.content.map((r) => r.id), page: data.page };
  });
}

export async function newestEventIds(): Promise<string[]> {
  return walk(async (after) => {
    const { data } = await client.GET("/public-api/events", { params: { query: { after, limit: 500, order: "desc" } } });
    return data && { rows: data.events.map((e) => e.id), page: data.page };
  });
}

export async function everyDeliveryAttempt(id: number): Promise<number[]> {
  return walk(async (after) => {
    const { data } = await client.GET("/public-api/webhooks/{id}/deliveries", { params: { path: { id }, query: { after, limit: 100 } } });
    return data && { rows: data.deliveries.map((d) => d.attempt), page: data.page };
  });
}

export async function update(id: number): Promise<boolean | undefined> {
  const { data } = await client.PUT("/public-api/trainees/{id}", {
    params: { path: { id } },
    body: { phoneNumber: null, expirationDate: "31-12-2027", enabled: true },
  });
  return data?.trainee.enabled;
}

export async function weights(id: number): Promise<number[]> {
  const { data } = await client.GET("/public-api/trainees/{id}/weight-history", {
    params: { path: { id }, query: { from: "01-10-2026", to: "31-10-2026" } },
  });
  return data?.entries.map((e) => e.weight) ?? [];
}

export async function steps(id: number): Promise<number | null | undefined> {
  const { data } = await client.GET("/public-api/trainees/{id}/average-steps", { params: { path: { id } } });
  return data?.averageSteps;
}
