import { z } from "zod";
import { fakeErrorCodes } from "../fake/constants.ts";
import type { FaultSpec } from "../fake/faults.ts";
import type {
  FakeSupplierApi,
  QualificationInit,
  RecontactRespondentInit,
  SurveyInit,
  SurveyPatch,
  SurveyStatusFilter,
} from "../fake/types.ts";
import type { SurveyQuota } from "@sds/schemas";
import { createRouter } from "@sds/schemas/internal/router";
import { ControlError } from "./control-error.ts";
import { errorResponse, jsonResponse, okBody } from "./envelope.ts";
import { readJsonBody } from "./request-body.ts";

/*
 * The control API under /__sandbox: each route calls the same method of the fake a test would
 * call in-process, so both ways behave alike. Bodies and errors use the service's envelope.
 */

const routeTable = [
  { id: "listSuppliers", method: "GET", path: "/suppliers" },
  { id: "listSurveys", method: "GET", path: "/suppliers/{supplierId}/surveys" },
  { id: "addSurvey", method: "POST", path: "/suppliers/{supplierId}/surveys" },
  { id: "getSurvey", method: "GET", path: "/surveys/{surveyId}" },
  { id: "updateSurvey", method: "PATCH", path: "/surveys/{surveyId}" },
  { id: "removeSurvey", method: "DELETE", path: "/surveys/{surveyId}" },
  { id: "closeSurvey", method: "POST", path: "/surveys/{surveyId}/close" },
  { id: "reopenSurvey", method: "POST", path: "/surveys/{surveyId}/reopen" },
  { id: "replaceQualifications", method: "PUT", path: "/surveys/{surveyId}/qualifications" },
  { id: "replaceQuotas", method: "PUT", path: "/surveys/{surveyId}/quotas" },
  { id: "replaceRecontactRespondents", method: "PUT", path: "/surveys/{surveyId}/recontact-respondents" },
  { id: "setSurveyStats", method: "PUT", path: "/surveys/{surveyId}/stats" },
  { id: "listSurveyGroups", method: "GET", path: "/suppliers/{supplierId}/survey-groups" },
  { id: "setSurveyGroup", method: "PUT", path: "/survey-groups/{groupId}" },
  { id: "addToSurveyGroup", method: "PUT", path: "/survey-groups/{groupId}/surveys/{surveyId}" },
  { id: "removeFromSurveyGroup", method: "DELETE", path: "/survey-groups/{groupId}/surveys/{surveyId}" },
  { id: "requestLog", method: "GET", path: "/requests" },
  { id: "clearRequestLog", method: "DELETE", path: "/requests" },
  { id: "listFaults", method: "GET", path: "/faults" },
  { id: "addFault", method: "POST", path: "/faults" },
  { id: "clearFaults", method: "DELETE", path: "/faults" },
  { id: "removeFault", method: "DELETE", path: "/faults/{faultId}" },
  { id: "reset", method: "POST", path: "/reset" },
] as const;
type ControlRouteId = (typeof routeTable)[number]["id"];
const routes = createRouter<ControlRouteId>(routeTable);
/** Routes that create something answer 201. */
const creatingRoutes = new Set<ControlRouteId>(["addSurvey", "addFault"]);

const record = z.record(z.string(), z.unknown());
const SurveyInitBody = z.strictObject({
  survey: record.optional(),
  live: z.boolean().optional(),
  qualifications: z.array(record).optional(),
  quotas: z.array(record).optional(),
  allowInvalid: z.boolean().optional(),
});
const QualificationsBody = z.strictObject({ qualifications: z.array(record) });
const QuotasBody = z.strictObject({ quotas: z.array(record) });
const RespondentsBody = z.strictObject({ respondents: z.array(record) });
const StatsBody = z.strictObject({ stats: record.nullable() });
const SurveyGroupBody = z.strictObject({ surveyIds: z.array(z.number()) });
const statusFilters = new Set<string>(["live", "closed", "all"]);

/** The request after the router: its params and a body reader. */
interface ControlRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  body<Schema extends z.ZodType>(schema: Schema): Promise<z.infer<Schema>>;
}

function integerParam(params: Readonly<Record<string, string>>, name: string): number {
  const value = params[name] ?? "";
  if (!/^\d{1,15}$/.test(value))
    throw new ControlError(
      400,
      fakeErrorCodes.invalidPathParameter,
      `${name} must be a non-negative integer, got "${value}"`,
    );
  return Number(value);
}

type ControlHandler = (
  api: FakeSupplierApi,
  request: ControlRequest,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

const handlers: Readonly<Record<ControlRouteId, ControlHandler>> = {
  listSuppliers: (api) => ({
    suppliers: api.keys.map(({ supplierId }) => ({
      supplierId,
      name: api.getAccount(supplierId).Name,
      liveSurveys: api.listSurveys(supplierId, "live").length,
      closedSurveys: api.listSurveys(supplierId, "closed").length,
    })),
  }),
  listSurveys: (api, { params, url }) => {
    const status = url.searchParams.get("status") ?? "live";
    if (!statusFilters.has(status))
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        `status must be live, closed or all, got "${status}"`,
      );
    return { surveys: api.listSurveys(integerParam(params, "supplierId"), status as SurveyStatusFilter) };
  },
  addSurvey: async (api, request) => {
    const init = (await request.body(SurveyInitBody)) as unknown as SurveyInit;
    return { survey: api.addSurvey(integerParam(request.params, "supplierId"), init) };
  },
  getSurvey: (api, { params }) => {
    const surveyId = integerParam(params, "surveyId");
    const found = api.getSurvey(surveyId);
    if (!found) throw new ControlError(404, fakeErrorCodes.surveyNotFound, `no survey ${surveyId}`);
    return { ...found };
  },
  updateSurvey: async (api, request) => {
    const patch = (await request.body(record)) as SurveyPatch;
    const allowInvalid = request.url.searchParams.get("allowInvalid") === "true";
    return { survey: api.updateSurvey(integerParam(request.params, "surveyId"), patch, { allowInvalid }) };
  },
  removeSurvey: (api, { params }) => {
    api.removeSurvey(integerParam(params, "surveyId"));
    return {};
  },
  closeSurvey: (api, { params }) => ({ survey: api.closeSurvey(integerParam(params, "surveyId")) }),
  reopenSurvey: (api, { params }) => ({ survey: api.reopenSurvey(integerParam(params, "surveyId")) }),
  replaceQualifications: async (api, request) => {
    const { qualifications } = await request.body(QualificationsBody);
    const surveyId = integerParam(request.params, "surveyId");
    return {
      qualifications: api.replaceQualifications(surveyId, qualifications as unknown as QualificationInit[]),
      survey: api.getSurvey(surveyId)?.survey,
    };
  },
  replaceQuotas: async (api, request) => {
    const { quotas } = await request.body(QuotasBody);
    const surveyId = integerParam(request.params, "surveyId");
    return { quotas: api.replaceQuotas(surveyId, quotas as SurveyQuota[]), survey: api.getSurvey(surveyId)?.survey };
  },
  replaceRecontactRespondents: async (api, request) => {
    const { respondents } = await request.body(RespondentsBody);
    return {
      respondents: api.replaceRecontactRespondents(
        integerParam(request.params, "surveyId"),
        respondents as unknown as RecontactRespondentInit[],
      ),
    };
  },
  setSurveyStats: async (api, request) => {
    const { stats } = await request.body(StatsBody);
    return { stats: api.setSurveyStats(integerParam(request.params, "surveyId"), stats) };
  },
  listSurveyGroups: (api, { params }) => ({ surveyGroups: api.listSurveyGroups(integerParam(params, "supplierId")) }),
  setSurveyGroup: async (api, request) => {
    const { surveyIds } = await request.body(SurveyGroupBody);
    return { surveyGroup: api.setSurveyGroup(integerParam(request.params, "groupId"), surveyIds) ?? null };
  },
  addToSurveyGroup: (api, { params }) => ({
    surveyGroup: api.addToSurveyGroup(integerParam(params, "groupId"), integerParam(params, "surveyId")),
  }),
  removeFromSurveyGroup: (api, { params }) => ({
    surveyGroup: api.removeFromSurveyGroup(integerParam(params, "groupId"), integerParam(params, "surveyId")) ?? null,
  }),
  requestLog: (api) => ({ requests: api.requestLog() }),
  clearRequestLog: (api) => {
    api.clearRequestLog();
    return {};
  },
  listFaults: (api) => ({ faults: api.faults.list() }),
  addFault: async (api, request) => ({ fault: api.faults.add((await request.body(record)) as unknown as FaultSpec) }),
  clearFaults: (api) => {
    api.faults.clear();
    return {};
  },
  removeFault: (api, { params }) => {
    const id = params.faultId ?? "";
    if (!api.faults.remove(id)) throw new ControlError(404, fakeErrorCodes.resourceNotFound, `no fault ${id}`);
    return {};
  },
  reset: (api) => {
    api.reset();
    return {};
  },
};

/** Creates the handler of `/__sandbox/…` requests for one fake. */
export function createControlHandler(
  api: FakeSupplierApi,
  maxBodyBytes: number,
): (request: Request, path: string) => Promise<Response> {
  return async (request, path) => {
    const route = routes.match(request.method, path);
    if (route.kind === "method-not-allowed") {
      return errorResponse(
        405,
        fakeErrorCodes.methodNotAllowed,
        [`${request.method} is not allowed here; use ${route.allow.join(", ")}.`],
        { allow: route.allow.join(", ") },
      );
    }
    if (route.kind !== "matched")
      return errorResponse(404, fakeErrorCodes.routeNotFound, [`No control route at ${request.method} ${path}.`]);
    const controlRequest: ControlRequest = {
      params: route.params,
      url: new URL(request.url),
      async body(schema) {
        const result = await readJsonBody(request, schema, maxBodyBytes);
        if (!result.ok) throw new ControlError(400, result.errorCode, result.messages.join(" "));
        return result.value;
      },
    };
    try {
      const fields = await handlers[route.id](api, controlRequest);
      return jsonResponse(creatingRoutes.has(route.id) ? 201 : 200, okBody(fields));
    } catch (error) {
      if (error instanceof ControlError) return errorResponse(error.status, error.errorCode, [error.message]);
      throw error;
    }
  };
}
