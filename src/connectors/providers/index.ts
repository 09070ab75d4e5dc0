/**
 * THE list of connectors. Adding one: a folder `providers/<name>/` whose index.ts exports its declaration
 * (`export default declareConnector({ … })`), one import and one entry below. Order is the
 * catalog's order.
 */
import type { ConnectorDeclarationInput } from "../declaration.ts";
import github from "./github/index.ts";
import github_app from "./github_app/index.ts";
import gmail from "./gmail/index.ts";
import jira from "./jira/index.ts";
import slack from "./slack/index.ts";
import airtable from "./airtable/index.ts";
import asana from "./asana/index.ts";
import bitbucket from "./bitbucket/index.ts";
import box from "./box/index.ts";
import calendly from "./calendly/index.ts";
import clickup from "./clickup/index.ts";
import discord from "./discord/index.ts";
import docusign from "./docusign/index.ts";
import dropbox from "./dropbox/index.ts";
import figma from "./figma/index.ts";
import gitlab from "./gitlab/index.ts";
import google_calendar from "./google_calendar/index.ts";
import google_drive from "./google_drive/index.ts";
import hubspot from "./hubspot/index.ts";
import intercom from "./intercom/index.ts";
import linear from "./linear/index.ts";
import microsoft from "./microsoft/index.ts";
import monday from "./monday/index.ts";
import notion from "./notion/index.ts";
import pagerduty from "./pagerduty/index.ts";
import pipedrive from "./pipedrive/index.ts";
import quickbooks from "./quickbooks/index.ts";
import salesforce from "./salesforce/index.ts";
import sentry from "./sentry/index.ts";
import spotify from "./spotify/index.ts";
import square from "./square/index.ts";
import stripe from "./stripe/index.ts";
import todoist from "./todoist/index.ts";
import typeform from "./typeform/index.ts";
import xero from "./xero/index.ts";
import zoom from "./zoom/index.ts";
import zendesk from "./zendesk/index.ts";
import shopify from "./shopify/index.ts";
import gusto from "./gusto/index.ts";
import jobber from "./jobber/index.ts";
import attio from "./attio/index.ts";
import zoho_crm from "./zoho_crm/index.ts";
import close from "./close/index.ts";
import front from "./front/index.ts";
import help_scout from "./help_scout/index.ts";
import salesloft from "./salesloft/index.ts";
import confluence from "./confluence/index.ts";
import smartsheet from "./smartsheet/index.ts";
import basecamp from "./basecamp/index.ts";
import wrike from "./wrike/index.ts";
import miro from "./miro/index.ts";
import webex from "./webex/index.ts";
import mailchimp from "./mailchimp/index.ts";
import klaviyo from "./klaviyo/index.ts";
import constant_contact from "./constant_contact/index.ts";
import dropbox_sign from "./dropbox_sign/index.ts";
import pandadoc from "./pandadoc/index.ts";
import ringcentral from "./ringcentral/index.ts";
import aircall from "./aircall/index.ts";
import paypal from "./paypal/index.ts";
import freshbooks from "./freshbooks/index.ts";
import webflow from "./webflow/index.ts";
import vercel from "./vercel/index.ts";
import linkedin from "./linkedin/index.ts";
import x from "./x/index.ts";
import eventbrite from "./eventbrite/index.ts";
import harvest from "./harvest/index.ts";
import canva from "./canva/index.ts";
import google_sheets from "./google_sheets/index.ts";
import youtube from "./youtube/index.ts";
import google_docs from "./google_docs/index.ts";
import strava from "./strava/index.ts";
import pinterest from "./pinterest/index.ts";
import reddit from "./reddit/index.ts";
import bitly from "./bitly/index.ts";
import digitalocean from "./digitalocean/index.ts";
import heroku from "./heroku/index.ts";
import netlify from "./netlify/index.ts";
import surveymonkey from "./surveymonkey/index.ts";
import acuity_scheduling from "./acuity_scheduling/index.ts";
import squarespace from "./squarespace/index.ts";
import switchyard from "./switchyard/index.ts";
import sendgrid from "./sendgrid/index.ts";
import postmark from "./postmark/index.ts";
import airtable_pat from "./airtable_pat/index.ts";
import twilio from "./twilio/index.ts";
import freshdesk from "./freshdesk/index.ts";
import openai from "./openai/index.ts";
import cal_com from "./cal_com/index.ts";
import tally from "./tally/index.ts";
import circleci from "./circleci/index.ts";
import jotform from "./jotform/index.ts";
import activecampaign from "./activecampaign/index.ts";
import trello from "./trello/index.ts";
import bigcommerce from "./bigcommerce/index.ts";
import woocommerce from "./woocommerce/index.ts";
import greenhouse from "./greenhouse/index.ts";
import lever from "./lever/index.ts";
import workable from "./workable/index.ts";
import bamboohr from "./bamboohr/index.ts";
import microsoft_teams from "./microsoft_teams/index.ts";
import onedrive from "./onedrive/index.ts";
import sharepoint from "./sharepoint/index.ts";

export const providers: readonly ConnectorDeclarationInput[] = [
  gmail,
  github,
  github_app,
  jira,
  slack,
  airtable,
  asana,
  bitbucket,
  box,
  calendly,
  clickup,
  discord,
  docusign,
  dropbox,
  figma,
  gitlab,
  google_calendar,
  google_drive,
  hubspot,
  intercom,
  linear,
  microsoft,
  monday,
  notion,
  pagerduty,
  pipedrive,
  quickbooks,
  salesforce,
  sentry,
  spotify,
  square,
  stripe,
  todoist,
  typeform,
  xero,
  zoom,
  zendesk,
  shopify,
  gusto,
  jobber,
  attio,
  zoho_crm,
  close,
  front,
  help_scout,
  salesloft,
  confluence,
  smartsheet,
  basecamp,
  wrike,
  miro,
  webex,
  mailchimp,
  klaviyo,
  constant_contact,
  dropbox_sign,
  pandadoc,
  ringcentral,
  aircall,
  paypal,
  freshbooks,
  webflow,
  vercel,
  linkedin,
  x,
  eventbrite,
  harvest,
  canva,
  google_sheets,
  youtube,
  google_docs,
  strava,
  pinterest,
  reddit,
  bitly,
  digitalocean,
  heroku,
  netlify,
  surveymonkey,
  acuity_scheduling,
  squarespace,
  sendgrid,
  postmark,
  airtable_pat,
  twilio,
  freshdesk,
  greenhouse,
  lever,
  workable,
  bamboohr,
  microsoft_teams,
  onedrive,
  sharepoint,
  switchyard,
  openai,
  cal_com,
  tally,
  circleci,
  jotform,
  activecampaign,
  trello,
  bigcommerce,
  woocommerce,
];
