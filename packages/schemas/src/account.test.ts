import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MASKED_SECRET,
  maskAccountSecrets,
  SupplierAccountResponse,
  UpdateResponse,
  UrlSettingsBody,
} from "./index.ts";
import { accountResponse, validUrls } from "../test/fixtures.ts";

describe("SupplierAccountResponse", () => {
  it("accepts an account whose QueryParameter and EncryptionKey are null when unset", () => {
    expect(SupplierAccountResponse.parse(accountResponse).data.OutgoingEncryption.EncryptionKey).toBeNull();
  });

  it("reads stored URLs leniently so that a bad one can still be seen and fixed", () => {
    const stored = {
      ...accountResponse,
      data: { ...accountResponse.data, RedirectUrls: { ...validUrls, CompleteUrl: "/relative" } },
    };
    expect(SupplierAccountResponse.safeParse(stored).success).toBe(true);
  });

  it("takes Id as a string, as the spec types it", () => {
    const numericId = { ...accountResponse, data: { ...accountResponse.data, Id: 12 } };
    expect(SupplierAccountResponse.safeParse(numericId).success).toBe(false);
  });
});

describe("UpdateResponse", () => {
  it("is the envelope alone with its confirmation message", () => {
    const body = {
      status: "ok",
      hasError: false,
      messages: ["Redirect URL configuration updated"],
      error: { errorCode: "" },
    };
    expect(UpdateResponse.parse(body)).toEqual(body);
  });
});

describe("UrlSettingsBody", () => {
  it("accepts absolute http and https URLs with [%RID%] and {rid} placeholders", () => {
    expect(UrlSettingsBody.parse(validUrls)).toEqual(validUrls);
  });

  it.each([
    ["a relative URL", "/complete"],
    ["an ftp URL", "ftp://panel.example/complete"],
    ["a javascript URL", "javascript:alert(1)"],
    ["an empty string", ""],
    ["surrounding spaces", " https://panel.example/complete"],
    ["a space inside", "https://panel.example/com plete"],
    ["no host", "https://"],
    ["an oversized URL", `https://panel.example/${"a".repeat(2100)}`],
  ])("rejects %s", (_label, url) => {
    const result = UrlSettingsBody.safeParse({ ...validUrls, TerminateUrl: url });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["TerminateUrl"]);
  });

  it("requires all five fields, Enabled included", () => {
    for (const field of ["Enabled", "CompleteUrl", "TerminateUrl", "OverQuotaUrl", "SecurityTerminateUrl"] as const) {
      const { [field]: _dropped, ...rest } = validUrls;
      const result = UrlSettingsBody.safeParse(rest);
      expect(result.error?.issues.map((issue) => issue.path)).toEqual([[field]]);
    }
  });

  it("rejects any body whose URL fields are not all absolute http(s) URLs (property)", () => {
    const notHttpUrl = fc.oneof(
      fc.string().filter((value) => !/^https?:\/\//.test(value)),
      fc.constantFrom("mailto:a@b.example", "file:///etc/passwd", "//panel.example/x", "http//x"),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("CompleteUrl", "TerminateUrl", "OverQuotaUrl", "SecurityTerminateUrl"),
        notHttpUrl,
        (field, value) => {
          expect(UrlSettingsBody.safeParse({ ...validUrls, [field]: value }).success).toBe(false);
        },
      ),
    );
  });
});

describe("maskAccountSecrets", () => {
  it("hides both encryption keys entirely and keeps unset ones null", () => {
    const masked = maskAccountSecrets(accountResponse.data);
    expect(masked.IncomingEncryption.EncryptionKey).toBe(MASKED_SECRET);
    expect(masked.OutgoingEncryption.EncryptionKey).toBeNull();
    expect(JSON.stringify(masked)).not.toContain("in-secret-key-123");
    expect(accountResponse.data.IncomingEncryption.EncryptionKey).toBe("in-secret-key-123");
  });
});
